package typed_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
	"github.com/frontdoor-go/frontdoor/examples/typedproxy/typed"
)

// dyingListener makes the first connection it accepts write only half of
// its first response and then close, like an upstream dying mid-frame.
type dyingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *dyingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil && l.n.Add(1) == 1 {
		c = &dyingConn{Conn: c}
	}
	return c, err
}

type dyingConn struct{ net.Conn }

func (c *dyingConn) Write(p []byte) (int, error) {
	n, _ := c.Conn.Write(p[:len(p)/2])
	c.Conn.Close()
	return n, net.ErrClosed
}

func TestUpstreamDiesMidFrame(t *testing.T) {
	_, addr := upstream(t, func(w *frame.Response, r *frame.Request) {
		w.Body = bytes.Repeat([]byte("x"), 10000)
	}, func(l net.Listener) net.Listener { return &dyingListener{Listener: l} })
	f := front(t, typed.FrontOptions{Addr: addr, MaxConns: 1})
	for i, want := range []int{502, 200, 200} {
		w := httptest.NewRecorder()
		f.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		if w.Code != want {
			t.Errorf("request %d = %d, want %d", i, w.Code, want)
		}
	}
	if s := f.Stats(); s.BadGateway != 1 || s.Forwarded != 2 || s.Dials != 2 || s.Open != 1 || s.Retries != 0 {
		t.Errorf("Stats() = %+v, want 1 bad gateway, 2 forwarded over a second connection, no retry", s)
	}
}

// connKiller remembers accepted connections so the test can close them
// from the upstream's side while they sit idle in the front's pool.
type connKiller struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *connKiller) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

func (l *connKiller) kill() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
	l.conns = nil
}

// TestStaleIdleConnection: an idle connection the upstream closed costs a
// retry for an idempotent request and a 502 for any other.
func TestStaleIdleConnection(t *testing.T) {
	var ck *connKiller
	s, addr := upstream(t, func(w *frame.Response, r *frame.Request) {}, func(l net.Listener) net.Listener {
		ck = &connKiller{Listener: l}
		return ck
	})
	f := front(t, typed.FrontOptions{Addr: addr, MaxConns: 1})
	do := func(method string) int {
		w := httptest.NewRecorder()
		f.ServeHTTP(w, httptest.NewRequest(method, "/", nil))
		return w.Code
	}
	tests := []struct {
		method      string
		want        int
		wantRetries uint64
	}{
		{"GET", 200, 1},
		{"POST", 502, 1},
	}
	for _, tt := range tests {
		if got := do(tt.method); got != 200 {
			t.Fatalf("%s on a fresh connection = %d, want 200", tt.method, got)
		}
		ck.kill()
		waitFor(t, func() bool { return s.Stats().Conns == 0 })
		if got := do(tt.method); got != tt.want {
			t.Errorf("%s on a stale connection = %d, want %d", tt.method, got, tt.want)
		}
		if got := f.Stats().Retries; got != tt.wantRetries {
			t.Errorf("Retries = %d, want %d", got, tt.wantRetries)
		}
	}
	if got := do("POST"); got != 200 {
		t.Errorf("POST after recovery = %d, want 200", got)
	}
}

func TestUpstreamTimeout(t *testing.T) {
	release := make(chan struct{})
	_, addr := upstream(t, func(w *frame.Response, r *frame.Request) { <-release }, nil)
	defer close(release) // before the upstream closes: Close waits for handlers
	f := front(t, typed.FrontOptions{Addr: addr, MaxConns: 1, Timeout: 50 * time.Millisecond})
	for i := range 2 { // each on a new connection: a timed-out one is dropped
		w := httptest.NewRecorder()
		f.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		if w.Code != 504 || w.Body.String() != "504 gateway timeout\n" {
			t.Errorf("request %d = %d %q, want 504", i, w.Code, w.Body)
		}
	}
	if s := f.Stats(); s.GatewayTimeout != 2 || s.Dials != 2 || s.Open != 0 {
		t.Errorf("Stats() = %+v, want 2 timeouts, each on its own dropped connection", s)
	}
}

func TestPoolWaitTimeout(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	_, addr := upstream(t, func(w *frame.Response, r *frame.Request) {
		entered <- struct{}{}
		<-release
	}, nil)
	f := front(t, typed.FrontOptions{Addr: addr, MaxConns: 1, Timeout: time.Minute})
	first := make(chan int)
	go func() {
		w := httptest.NewRecorder()
		f.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		first <- w.Code
	}()
	<-entered
	// The only connection is busy; this request's own deadline passes in the queue.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	w := httptest.NewRecorder()
	f.ServeHTTP(w, httptest.NewRequest("GET", "/", nil).WithContext(ctx))
	if w.Code != 504 {
		t.Errorf("queued request = %d, want 504", w.Code)
	}
	close(release)
	if got := <-first; got != 200 {
		t.Errorf("first request = %d, want 200", got)
	}
	if s := f.Stats(); s.Dials != 1 || s.Open != 1 {
		t.Errorf("Stats() = %+v, want 1 connection, never more", s)
	}
}

// TestClientGoesAway: the exchange stops when the client does, and the
// connection, whose state is then unknown, is dropped.
func TestClientGoesAway(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	_, addr := upstream(t, func(w *frame.Response, r *frame.Request) {
		entered <- struct{}{}
		<-release
	}, nil)
	defer close(release)
	f := front(t, typed.FrontOptions{Addr: addr})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-entered
		cancel()
	}()
	w := httptest.NewRecorder()
	f.ServeHTTP(w, httptest.NewRequest("GET", "/", nil).WithContext(ctx))
	if s := f.Stats(); s.Canceled != 1 || s.Open != 0 || s.GatewayTimeout != 0 {
		t.Errorf("Stats() = %+v, want 1 canceled, connection dropped", s)
	}
}

func TestUpstreamDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	f := front(t, typed.FrontOptions{Addr: addr})
	w := httptest.NewRecorder()
	f.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 502 {
		t.Errorf("ServeHTTP() = %d, want 502", w.Code)
	}
	if s := f.Stats(); s.Open != 0 || s.BadGateway != 1 {
		t.Errorf("Stats() = %+v, want no open connection, 1 bad gateway", s)
	}
}

func TestRejectsBeforeForwarding(t *testing.T) {
	f := front(t, typed.FrontOptions{Addr: "127.0.0.1:1", Headers: []string{"X-Tag"}})
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Tag", "\xff")
	w := httptest.NewRecorder()
	f.ServeHTTP(w, r)
	if w.Code != 400 {
		t.Errorf("invalid UTF-8 header = %d, want 400", w.Code)
	}
	r = httptest.NewRequest("POST", "/", io.MultiReader(strings.NewReader("abc"), iotestErr{}))
	w = httptest.NewRecorder()
	f.ServeHTTP(w, r)
	if w.Code != 400 {
		t.Errorf("broken body = %d, want 400", w.Code)
	}
	if s := f.Stats(); s.Rejected != 2 || s.Dials != 0 {
		t.Errorf("Stats() = %+v, want 2 rejected, 0 dials", s)
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestCloseFront(t *testing.T) {
	_, addr := upstream(t, echo, nil)
	f := typed.NewFront(typed.FrontOptions{Addr: addr})
	w := httptest.NewRecorder()
	f.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	f.Close()
	if s := f.Stats(); s.Open != 0 {
		t.Errorf("Open after Close = %d, want 0", s.Open)
	}
	w = httptest.NewRecorder()
	f.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 502 {
		t.Errorf("after Close = %d, want 502", w.Code)
	}
}

// waitFor polls cond, for events on the other side of a socket that no
// channel reports; it fails the test after 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatal("condition not reached in 10s")
		}
	}
}
