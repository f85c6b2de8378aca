package concurrency

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// serveSpy serves a request with ctx through h in a goroutine, to a
// client that stays connected.
func serveSpy(ctx context.Context, h http.Handler, path string) (*spyWriter, chan struct{}) {
	spy := &spyWriter{h: http.Header{}}
	return spy, serveIn(h, spy, spy, httptest.NewRequestWithContext(ctx, "GET", path, nil))
}

// serveGone is serveSpy for a client that hangs up when ctx is canceled.
func serveGone(ctx context.Context, h http.Handler, path string) (*spyWriter, chan struct{}) {
	spy := &spyWriter{h: http.Header{}}
	return spy, serveIn(h, hangUpOn(ctx, spy), spy, httptest.NewRequestWithContext(ctx, "GET", path, nil))
}

func serveIn(h http.Handler, w http.ResponseWriter, spy *spyWriter, req *http.Request) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		serveTo(h, w, spy, req)
	}()
	return done
}

// A queued request whose deadline passes is refused like one whose wait
// budget ran out: 503 with Retry-After, counted as timed out. Only a
// client that hung up (its context canceled, then its connection reported
// closed) is abandoned and gets nothing.
func TestDeadlineWhileQueuedIsTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		timeout bool          // else the client hangs up: abandoned
		after   time.Duration // when the request is answered
	}{
		{"deadline while queued", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, true, 100 * time.Millisecond},
		{"deadline with a cause", func() (context.Context, context.CancelFunc) {
			return context.WithTimeoutCause(context.Background(), 100*time.Millisecond, errors.New("route budget"))
		}, true, 100 * time.Millisecond},
		{"canceled with DeadlineExceeded as cause", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancelCause(context.Background())
			time.AfterFunc(100*time.Millisecond, func() { cancel(context.DeadlineExceeded) })
			return ctx, func() { cancel(nil) }
		}, true, 100 * time.Millisecond},
		{"deadline passed on arrival", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		}, true, 0},
		{"canceled while queued", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, false, 100 * time.Millisecond},
		{"canceled on arrival", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Repeated: on a fresh Limiter (no service time yet) the wait
			// budget is the time left to the deadline, so the budget timer
			// and the deadline fire at the same instant, in either order.
			for range 10 {
				synctest.Test(t, func(t *testing.T) {
					g := newGate()
					l := New(Options{Limit: 1, QueueTimeout: time.Hour})
					var ran atomic.Int32
					h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.URL.Path == "/late" {
							ran.Add(1)
						}
						g.ServeHTTP(w, r)
					}))
					_, hold := do(h, "/hold")
					synctest.Wait()
					ctx, cancel := tc.ctx()
					defer cancel()
					start := time.Now()
					serve := serveGone
					if tc.timeout {
						serve = serveSpy
					}
					w, d := serve(ctx, h, "/late")
					<-d
					if got := time.Since(start); got != tc.after {
						t.Errorf("answered after %v, want %v", got, tc.after)
					}
					s := l.Stats()
					if tc.timeout {
						if w.code != http.StatusServiceUnavailable || w.h.Get("Retry-After") == "" {
							t.Errorf("status, Retry-After = %d, %q, want 503 and a value", w.code, w.h.Get("Retry-After"))
						}
						if s.TimedOut != 1 || s.Refused != 1 || s.Abandoned != 0 {
							t.Errorf("TimedOut, Refused, Abandoned = %d, %d, %d, want 1, 1, 0", s.TimedOut, s.Refused, s.Abandoned)
						}
					} else {
						if w.touched || len(w.h) != 0 || !w.aborted {
							t.Errorf("to a gone client: status %d, header %v, aborted %v, want nothing written and an abort", w.code, w.h, w.aborted)
						}
						if s.Abandoned != 1 || s.Refused != 0 {
							t.Errorf("Abandoned, Refused = %d, %d, want 1, 0", s.Abandoned, s.Refused)
						}
					}
					close(g.release)
					<-hold
					if got := ran.Load(); got != 0 {
						t.Errorf("handler ran %d times for an expired request, want 0", got)
					}
					checkIdle(t, l)
				})
			}
		})
	}
}

// A waiter granted a slot just as its deadline passes is not run: it
// passes the slot on and is refused as timed out.
func TestDeadlineAtGrantIsTimeout(t *testing.T) {
	for range 50 {
		synctest.Test(t, func(t *testing.T) {
			l := New(Options{Limit: 1, QueueTimeout: time.Hour})
			release := make(chan struct{})
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var ran atomic.Int32
			h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/hold" {
					<-release
					// The waiter's deadline passes as the slot comes free.
					cancel(context.DeadlineExceeded)
					return
				}
				ran.Add(1)
			}))
			_, hold := do(h, "/hold")
			synctest.Wait()
			w, late := serveSpy(ctx, h, "/late")
			synctest.Wait()
			close(release)
			<-hold
			<-late
			_, after := do(h, "/after")
			<-after
			s := l.Stats()
			if w.code != http.StatusServiceUnavailable || s.TimedOut != 1 || s.Abandoned != 0 {
				t.Fatalf("status, TimedOut, Abandoned = %d, %d, %d, want 503, 1, 0", w.code, s.TimedOut, s.Abandoned)
			}
			if got := ran.Load(); got != 1 {
				t.Fatalf("ran %d, want 1 (only /after)", got)
			}
			checkIdle(t, l)
		})
	}
}

// When the slot comes free at the very instant the deadline passes, the
// request either runs or is refused: it never gets an answer from nobody.
func TestDeadlineTieRunsOrRefuses(t *testing.T) {
	for range 50 {
		synctest.Test(t, func(t *testing.T) {
			l := New(Options{Limit: 1, QueueTimeout: time.Hour})
			var ran atomic.Int32
			h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/hold" {
					time.Sleep(100 * time.Millisecond)
					return
				}
				ran.Add(1)
				w.Write([]byte("ran"))
			}))
			_, hold := do(h, "/hold")
			synctest.Wait()
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			w, late := serveSpy(ctx, h, "/late")
			<-hold
			<-late
			s := l.Stats()
			switch {
			case ran.Load() == 1 && w.code == http.StatusOK && s.Admitted == 2:
			case ran.Load() == 0 && w.code == http.StatusServiceUnavailable && s.TimedOut == 1:
			default:
				t.Fatalf("ran %d, status %d, Admitted %d, TimedOut %d, Abandoned %d: want run or refused",
					ran.Load(), w.code, s.Admitted, s.TimedOut, s.Abandoned)
			}
			checkIdle(t, l)
		})
	}
}
