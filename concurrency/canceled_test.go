package concurrency

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/gone"
	"github.com/frontdoor-go/frontdoor/priority"
)

// A request whose context is canceled before it gets a slot while its
// client is still connected (the server's BaseContext canceled, a
// middleware outside giving up) is refused with 503 and Retry-After,
// counted as Canceled, and never run: it never gets an empty 200.
func TestCanceledWhileConnectedIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ctx   func() (context.Context, context.CancelFunc)
		after time.Duration // when the request is answered
	}{
		{"canceled while queued", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, 100 * time.Millisecond},
		{"canceled with a cause while queued", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancelCause(context.Background())
			time.AfterFunc(100*time.Millisecond, func() { cancel(errors.New("shutting down")) })
			return ctx, func() { cancel(nil) }
		}, 100 * time.Millisecond},
		{"canceled on arrival", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, 0},
	} {
		for _, wr := range []struct {
			name string
			// open wraps spy in a writer whose connection stays open.
			open  func(spy *spyWriter) http.ResponseWriter
			grace time.Duration // how long the Limiter waits to see the close
		}{
			{"writer without CloseNotify", func(spy *spyWriter) http.ResponseWriter { return spy }, 0},
			{"connection open", func(spy *spyWriter) http.ResponseWriter {
				return &hangUpWriter{spy, make(chan bool)}
			}, graceOf(tc.name)},
		} {
			for _, levels := range []bool{false, true} {
				name := tc.name + "/" + wr.name
				if levels {
					name += "/Priority"
				}
				t.Run(name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						o := Options{Limit: 1, QueueTimeout: time.Hour}
						if levels {
							o.Priority = priority.Header("")
						}
						l := New(o)
						g := newGate()
						var ran atomic.Int32
						h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
							if r.URL.Path != "/hold" {
								ran.Add(1)
							}
							g.ServeHTTP(w, r)
						}))
						_, hold := do(h, "/hold")
						synctest.Wait()
						ctx, cancel := tc.ctx()
						defer cancel()
						spy := &spyWriter{h: http.Header{}}
						req := httptest.NewRequestWithContext(ctx, "GET", "/late", nil)
						req.Header.Set(priority.DefaultHeader, "sheddable")
						start := time.Now()
						<-serveIn(h, wr.open(spy), spy, req)
						if got, want := time.Since(start), tc.after+wr.grace; got != want {
							t.Errorf("answered after %v, want %v", got, want)
						}
						if spy.code != http.StatusServiceUnavailable || spy.h.Get("Retry-After") == "" || spy.aborted {
							t.Errorf("status %d, Retry-After %q, aborted %v, want 503, a value, no abort",
								spy.code, spy.h.Get("Retry-After"), spy.aborted)
						}
						s := l.Stats()
						if s.Canceled != 1 || s.Refused != 1 || s.Abandoned != 0 {
							t.Errorf("Canceled, Refused, Abandoned = %d, %d, %d, want 1, 1, 0", s.Canceled, s.Refused, s.Abandoned)
						}
						if levels {
							if got := s.Levels[priority.Sheddable.Index()].Refused; got != 1 {
								t.Errorf("Levels[sheddable].Refused = %d, want 1", got)
							}
							if got := spy.h.Get(priority.DefaultHeader); got != "sheddable" {
								t.Errorf("%s = %q, want sheddable", priority.DefaultHeader, got)
							}
						}
						close(g.release)
						<-hold
						if got := ran.Load(); got != 0 {
							t.Errorf("handler ran %d times for a canceled request, want 0", got)
						}
						checkIdle(t, l)
					})
				})
			}
		}
	}
}

// graceOf is how long the Limiter waits for a writer that can report its
// connection closed to do so, for a context canceled as in case name: the
// grace of gone.Client, but not for a cause of its own, which net/http
// never gives.
func graceOf(name string) time.Duration {
	if name == "canceled with a cause while queued" {
		return 0
	}
	return gone.Grace
}

// Over real connections, HTTP/1.1 and HTTP/2: a request queued when the
// server's BaseContext is canceled, or when a middleware outside cancels
// its context, gets 503 with Retry-After, not an empty 200; one whose
// client hangs up gets nothing and is counted as abandoned.
func TestCanceledWhileQueuedOverTheWire(t *testing.T) {
	for _, proto := range []string{"HTTP/1.1", "HTTP/2"} {
		for _, tc := range []struct {
			name string
			end  func(hangUp, base, outer context.CancelFunc)
			gone bool
		}{
			{"BaseContext canceled", func(_, base, _ context.CancelFunc) { base() }, false},
			{"outer middleware cancels", func(_, _, outer context.CancelFunc) { outer() }, false},
			{"client hangs up", func(hangUp, _, _ context.CancelFunc) { hangUp() }, true},
		} {
			t.Run(proto+"/"+tc.name, func(t *testing.T) {
				testCanceledOverTheWire(t, proto, tc.end, tc.gone)
			})
		}
	}
}

func testCanceledOverTheWire(t *testing.T, proto string, end func(hangUp, base, outer context.CancelFunc), gone bool) {
	l := New(Options{Limit: 1, QueueTimeout: time.Minute})
	release := make(chan struct{})
	var ran atomic.Int32
	limited := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			<-release
			return
		}
		ran.Add(1)
	}))
	baseCtx, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	outerCtx, cancelOuter := context.WithCancel(context.Background())
	defer cancelOuter()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			limited.ServeHTTP(w, r)
			return
		}
		// A middleware outside that cancels the context it passes on.
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(outerCtx, cancel)()
		limited.ServeHTTP(w, r.WithContext(ctx))
	}))
	srv.Config.BaseContext = func(net.Listener) context.Context { return baseCtx }
	if proto == "HTTP/2" {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()

	holdDone := make(chan struct{})
	go func() {
		defer close(holdDone)
		// Its own context: canceling the BaseContext cancels the held
		// request too, and it returns when released, answered or not.
		if resp, err := client.Get(srv.URL + "/hold"); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, func() bool { return l.Stats().Running == 1 })

	reqCtx, hangUp := context.WithCancel(context.Background())
	defer hangUp()
	req, _ := http.NewRequestWithContext(reqCtx, "GET", srv.URL+"/late", nil)
	type answer struct {
		code       int
		retryAfter string
		err        error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := client.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		resp.Body.Close()
		answered <- answer{code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	}()
	waitFor(t, func() bool { return l.Stats().Queued == 1 })
	end(hangUp, cancelBase, cancelOuter)
	a := <-answered
	switch s := l.Stats(); {
	case gone:
		waitFor(t, func() bool { return l.Stats().Abandoned == 1 })
		if s := l.Stats(); s.Refused != 0 {
			t.Errorf("Refused = %d, want 0 for a client that hung up", s.Refused)
		}
	case a.err != nil:
		t.Errorf("the client still connected got no answer: %v", a.err)
	case a.code != http.StatusServiceUnavailable || a.retryAfter == "":
		t.Errorf("status %d, Retry-After %q, want 503 and a value", a.code, a.retryAfter)
	case s.Canceled != 1 || s.Abandoned != 0:
		t.Errorf("Canceled, Abandoned = %d, %d, want 1, 0", s.Canceled, s.Abandoned)
	}
	close(release)
	<-holdDone
	if got := ran.Load(); got != 0 {
		t.Errorf("handler ran %d times for a request canceled while queued, want 0", got)
	}
	waitFor(t, func() bool { s := l.Stats(); return s.Running == 0 && s.Queued == 0 })
}
