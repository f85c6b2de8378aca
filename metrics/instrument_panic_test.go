package metrics_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
	"github.com/frontdoor-go/frontdoor/metrics"
)

// A handler that panics is in no status class: http.ErrAbortHandler is
// counted as aborted, anything else as a panic, and the panic goes on
// with the same value.
func TestInstrumentPanic(t *testing.T) {
	errBoom := errors.New("boom")
	for _, tc := range []struct {
		name                 string
		value                any
		wantPanics, wantAbrt uint64
	}{
		{"abort", http.ErrAbortHandler, 0, 1},
		{"error", errBoom, 1, 0},
		{"string", "boom", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
			h := in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(200)
				panic(tc.value)
			}))
			func() {
				defer func() {
					if r := recover(); r != tc.value {
						t.Errorf("recover() = %v, want %v", r, tc.value)
					}
				}()
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
			}()
			st := in.Stats()
			if st.Panics != tc.wantPanics || st.Aborted != tc.wantAbrt {
				t.Errorf("Panics, Aborted = %d, %d, want %d, %d", st.Panics, st.Aborted, tc.wantPanics, tc.wantAbrt)
			}
			for class, cs := range st.Classes {
				if cs.Requests != 0 {
					t.Errorf("Classes[%q].Requests = %d, want 0", class, cs.Requests)
				}
			}
		})
	}
}

// A handler that exits its goroutine (t.FailNow, runtime.Goexit) did not
// return: it is counted as a panic, and nothing is re-raised.
func TestInstrumentGoexit(t *testing.T) {
	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("recover() = %v, want nil", r)
			}
		}()
		in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			runtime.Goexit()
		})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
		t.Error("ServeHTTP returned after Goexit")
	})
	wg.Wait()
	if st := in.Stats(); st.Panics != 1 || st.Aborted != 0 {
		t.Errorf("Panics, Aborted = %d, %d, want 1, 0", st.Panics, st.Aborted)
	}
}

// On a real server, net/http still sees the handler's own panic value:
// an abort is dropped silently, any other panic is logged with the stack
// of the original panic.
func TestInstrumentPanicOnServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		value   any
		wantLog string // "" for no log at all
	}{
		{"abort", http.ErrAbortHandler, ""},
		{"panic", "boom", "panicDeep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
			var logged syncBuffer
			srv := httptest.NewUnstartedServer(in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				panicDeep(tc.value)
			})))
			srv.Config.ErrorLog = log.New(&logged, "", 0)
			srv.Start()
			res, err := http.Get(srv.URL)
			if err == nil {
				res.Body.Close()
				t.Errorf("GET got a response %d, want the connection dropped", res.StatusCode)
			}
			srv.Close() // waits for the handler
			got := logged.String()
			switch {
			case tc.wantLog == "" && got != "":
				t.Errorf("server logged %q, want nothing", got)
			case tc.wantLog != "" && !strings.Contains(got, tc.wantLog):
				t.Errorf("server log has no %q:\n%s", tc.wantLog, got)
			}
		})
	}
}

//go:noinline
func panicDeep(v any) { panic(v) }

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// bodybuffer aborts a request whose client left mid-body with
// http.ErrAbortHandler. Behind Instrument, on a real server with a raw
// client that sends half a body and hangs up, the request is counted as
// aborted (not as a panic, not as a 2xx), bodybuffer counts a client
// gone, the handler never runs and net/http logs nothing.
func TestInstrumentBodyBufferAbort(t *testing.T) {
	b := bodybuffer.New(bodybuffer.Options{MaxBytes: 1000, Dir: t.TempDir()})
	in := metrics.NewInstrumenter("upload", metrics.InstrumenterOptions{})
	var logged syncBuffer
	srv := httptest.NewUnstartedServer(in.Handler(b.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("handler ran for a client that left")
	}))))
	srv.Config.ErrorLog = log.New(&logged, "", 0)
	srv.Start()

	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"+strings.Repeat("h", 50))
	c.(*net.TCPConn).CloseWrite()
	if res, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
		t.Errorf("client got a response %d, want none", res.StatusCode)
	}
	srv.Close() // waits for the handler

	st := in.Stats()
	if st.Aborted != 1 || st.Panics != 0 {
		t.Errorf("Aborted, Panics = %d, %d, want 1, 0", st.Aborted, st.Panics)
	}
	for class, cs := range st.Classes {
		if cs.Requests != 0 {
			t.Errorf("Classes[%q].Requests = %d, want 0", class, cs.Requests)
		}
	}
	if bs := b.Stats(); bs.ClientGone != 1 || bs.Bytes != 50 {
		t.Errorf("bodybuffer ClientGone, Bytes = %d, %d, want 1, 50", bs.ClientGone, bs.Bytes)
	}
	if got := logged.String(); got != "" {
		t.Errorf("server logged %q, want nothing", got)
	}
}

// The state of a request is its own: a handler that (wrongly) keeps its
// writer and writes to it during a later request does not change that
// request's counts.
func TestInstrumentStaleWriter(t *testing.T) {
	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
	var kept http.ResponseWriter
	in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kept = w
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("first"))
	})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kept.Write([]byte("stale write"))
		io.WriteString(kept, "more")
		w.Write([]byte("second"))
	})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	st := in.Stats()
	if got := st.Classes["4xx"]; got.Requests != 1 || got.Bytes != 5 {
		t.Errorf("4xx = %d requests, %d bytes, want 1, 5", got.Requests, got.Bytes)
	}
	if got := st.Classes["2xx"]; got.Requests != 1 || got.Bytes != 6 {
		t.Errorf("2xx = %d requests, %d bytes, want 1, 6", got.Requests, got.Bytes)
	}
}
