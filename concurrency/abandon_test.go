package concurrency

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// spyWriter records whether anything was written, and the status sent
// (0 while nothing was). Its connection never closes: it is no
// http.CloseNotifier.
type spyWriter struct {
	h       http.Header
	touched bool
	code    int
	aborted bool // the handler panicked with http.ErrAbortHandler
}

// hangUpWriter is a spyWriter whose client hangs up when ctx is canceled,
// as net/http reports it: the request context is canceled, and then
// CloseNotify fires.
type hangUpWriter struct {
	*spyWriter
	closed chan bool
}

func (w *hangUpWriter) CloseNotify() <-chan bool { return w.closed }

func hangUpOn(ctx context.Context, spy *spyWriter) *hangUpWriter {
	w := &hangUpWriter{spy, make(chan bool, 1)}
	context.AfterFunc(ctx, func() { w.closed <- true })
	return w
}

// serveTo serves req through h to w, which writes to spy, and records an
// abort (http.ErrAbortHandler, which net/http handles) in spy.
func serveTo(h http.Handler, w http.ResponseWriter, spy *spyWriter, req *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			spy.aborted = true
		}
	}()
	h.ServeHTTP(w, req)
}

func (s *spyWriter) Header() http.Header { return s.h }

func (s *spyWriter) WriteHeader(code int) {
	s.touched = true
	if s.code == 0 {
		s.code = code
	}
}

func (s *spyWriter) Write(b []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	return len(b), nil
}

func TestAbandonedWhileQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		l := New(Options{Limit: 1, QueueTimeout: time.Hour})
		var ran atomic.Int32
		h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/gone" {
				ran.Add(1)
			}
			g.ServeHTTP(w, r)
		}))
		_, hold := do(h, "/hold")
		synctest.Wait()
		ctx, cancel := context.WithCancel(context.Background())
		w, done := serveGone(ctx, h, "/gone")
		synctest.Wait()
		cancel()
		<-done
		if w.touched || len(w.h) != 0 || !w.aborted {
			t.Errorf("to a gone client: touched %v, header %v, aborted %v, want nothing written and an abort", w.touched, w.h, w.aborted)
		}
		s := l.Stats()
		if s.Abandoned != 1 || s.Refused != 0 || s.Queued != 0 {
			t.Errorf("Abandoned, Refused, Queued = %d, %d, %d, want 1, 0, 0", s.Abandoned, s.Refused, s.Queued)
		}
		close(g.release)
		<-hold
		if got := ran.Load(); got != 0 {
			t.Errorf("handler ran %d times for a gone client, want 0", got)
		}
		checkIdle(t, l)
	})
}

// A waiter granted a slot just as its client leaves passes the slot on.
func TestAbandonedAfterGrant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Limit: 1, QueueTimeout: time.Hour})
		release := make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Int32
		h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hold" {
				<-release
				cancel() // the waiter's client leaves as it is granted
				return
			}
			ran.Add(1)
		}))
		_, hold := do(h, "/hold")
		synctest.Wait()
		w, gone := serveGone(ctx, h, "/gone")
		synctest.Wait()
		close(release)
		<-hold
		<-gone
		if w.touched || !w.aborted {
			t.Errorf("to a gone client: touched %v, aborted %v, want nothing written and an abort", w.touched, w.aborted)
		}
		_, after := do(h, "/after")
		<-after
		if got, s := ran.Load(), l.Stats(); got != 1 || s.Abandoned != 1 {
			t.Errorf("ran, Abandoned = %d, %d, want 1, 1", got, s.Abandoned)
		}
		checkIdle(t, l)
	})
}

// Over a real connection: a client that hangs up while queued is never
// served, is counted as abandoned, and frees its place.
func TestAbandonedOverTheWire(t *testing.T) {
	l := New(Options{Limit: 1, QueueTimeout: time.Minute})
	release := make(chan struct{})
	var ran atomic.Int32
	srv := httptest.NewServer(l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran.Add(1)
		if r.URL.Path == "/hold" {
			<-release
		}
	})))
	defer srv.Close()
	holdDone := make(chan error, 1)
	go func() {
		resp, err := http.Get(srv.URL + "/hold")
		if err == nil {
			resp.Body.Close()
		}
		holdDone <- err
	}()
	waitFor(t, func() bool { return l.Stats().Running == 1 })
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /gone HTTP/1.1\r\nHost: x\r\n\r\n")
	waitFor(t, func() bool { return l.Stats().Queued == 1 })
	conn.Close()
	waitFor(t, func() bool { return l.Stats().Abandoned == 1 })
	close(release)
	if err := <-holdDone; err != nil {
		t.Fatal(err)
	}
	if got := ran.Load(); got != 1 {
		t.Errorf("handler ran %d times, want 1 (not for the gone client)", got)
	}
	waitFor(t, func() bool { s := l.Stats(); return s.Running == 0 && s.Queued == 0 })
}

// waitFor polls cond on the real clock (wire tests cannot use synctest).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10s")
		}
	}
}

func TestPanicReleasesSlot(t *testing.T) {
	for _, tc := range []struct {
		name string
		val  any
	}{
		{"ErrAbortHandler", http.ErrAbortHandler},
		{"other", errors.New("boom")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(Options{Limit: 1})
			h := l.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(tc.val) }))
			for range 3 {
				func() {
					defer func() {
						if got := recover(); got != tc.val {
							t.Errorf("recover() = %v, want %v", got, tc.val)
						}
					}()
					h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
				}()
			}
			if s := l.Stats(); s.Admitted != 3 || s.Refused != 0 {
				t.Errorf("Admitted, Refused = %d, %d, want 3, 0", s.Admitted, s.Refused)
			}
			checkIdle(t, l)
		})
	}
}

// Over the wire, net/http recovers the panic and closes the connection;
// the slot must still come back.
func TestAbortHandlerOverTheWire(t *testing.T) {
	l := New(Options{Limit: 1})
	srv := httptest.NewUnstartedServer(l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("partial"))
		panic(http.ErrAbortHandler)
	})))
	srv.Config.ErrorLog = nil
	srv.Start()
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	bufio.NewReader(conn).ReadString(0) // until the server aborts
	waitFor(t, func() bool { return l.Stats().Running == 0 })
	if s := l.Stats(); s.Admitted != 1 {
		t.Errorf("Admitted = %d, want 1", s.Admitted)
	}
}
