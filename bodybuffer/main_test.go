package bodybuffer

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// rig is a real server running a Buffer in front of a handler that
// records what it saw.
type rig struct {
	t      *testing.T
	b      *Buffer
	ts     *httptest.Server
	dir    string
	calls  atomic.Int64
	last   atomic.Value // string: the body next read
	closed bool
}

// newRig starts an HTTP/1.1 server (h2: HTTP/2 over TLS) with o; o.Dir is
// a fresh temporary directory checked empty when the test ends. handle,
// if not nil, runs after the body was read and recorded.
func newRig(t *testing.T, o Options, h2 bool, handle func(http.ResponseWriter, *http.Request)) *rig {
	t.Helper()
	return newRigWith(t, o, h2, handle, nil)
}

// newRigWith is newRig with config, if not nil, applied to the server
// before it starts.
func newRigWith(t *testing.T, o Options, h2 bool, handle func(http.ResponseWriter, *http.Request), config func(*http.Server)) *rig {
	t.Helper()
	g := &rig{t: t, dir: t.TempDir()}
	o.Dir = g.dir
	g.b = New(o)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.calls.Add(1)
		data, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("handler: ReadAll() error = %v", err)
		}
		if r.ContentLength != int64(len(data)) {
			t.Errorf("handler: ContentLength = %d, want %d", r.ContentLength, len(data))
		}
		if r.TransferEncoding != nil {
			t.Errorf("handler: TransferEncoding = %v, want nil", r.TransferEncoding)
		}
		g.last.Store(string(data))
		if handle != nil {
			handle(w, r)
			return
		}
		w.Write([]byte("ok:"))
		w.Write(data)
	})
	g.ts = httptest.NewUnstartedServer(g.b.Handler(next))
	if config != nil {
		config(g.ts.Config)
	}
	if h2 {
		g.ts.EnableHTTP2 = true
		g.ts.StartTLS()
	} else {
		g.ts.Start()
	}
	t.Cleanup(g.close)
	return g
}

// close stops the server and waits for every request to finish, then
// checks that nothing is left: no body buffer held, no upload in
// progress (or it fails after 10 s), no file in the spool directory, no
// spool file still open.
func (g *rig) close() {
	if g.closed {
		return
	}
	g.closed = true
	g.ts.Close()
	// Close waits for HTTP/1 handlers; HTTP/2 handlers run on goroutines
	// of their own and may still be unwinding, so wait for the release.
	waitFor(g.t, func() bool { s := g.b.Stats(); return s.Reading == 0 && s.MemHeld == 0 })
	checkSpoolDir(g.t, g.dir)
}

func checkSpoolDir(t *testing.T, dir string) {
	t.Helper()
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("spool dir holds %d files, want 0", len(ents))
	}
	if runtime.GOOS != "linux" {
		return
	}
	fds, _ := filepath.Glob("/proc/self/fd/*")
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, dir) {
			t.Errorf("spool file still open: %s", l)
		}
	}
}

// dial opens a raw TCP connection to the rig with a generous deadline so
// a broken test fails instead of hanging.
func (g *rig) dial() *net.TCPConn {
	g.t.Helper()
	c, err := net.Dial("tcp", g.ts.Listener.Addr().String())
	if err != nil {
		g.t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	g.t.Cleanup(func() { c.Close() })
	return c.(*net.TCPConn)
}

// readResponse reads one response from c; a nil response means the
// server closed the connection without answering.
func readResponse(t *testing.T, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, ""
	}
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, string(data)
}

// rigs maps a test to its rig, for client scripts that wait on the server.
var rigs sync.Map

func rigOf(t *testing.T) *rig {
	g, _ := rigs.Load(t)
	return g.(*rig)
}

// waitFor polls cond until it holds; it synchronises with the server and
// asserts nothing about time (the limit only stops a broken test).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("condition not reached in 10s")
		}
	}
}
