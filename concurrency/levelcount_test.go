package concurrency

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
)

// Every refusal is counted in exactly one level, the caller's, on every
// path by which a caller is refused, and every admission too: the levels
// sum to the totals.
func TestEveryRefusalCountedInItsLevel(t *testing.T) {
	shd, crit := priority.Sheddable, priority.Critical
	at := func(lv priority.Level) context.Context { return priority.WithLevel(context.Background(), lv) }
	for _, tc := range []struct {
		name string
		o    Options
		want Reason // why the caller is refused; 0: it is not
		// run holds the one slot and makes one caller of level shd take
		// its path; it returns the Reason that caller was refused for,
		// 0 if it was not refused.
		run func(t *testing.T, l *Limiter, q *waiters) Reason
	}{
		{"queue full", Options{MaxQueue: -1}, QueueFull, func(t *testing.T, l *Limiter, q *waiters) Reason {
			return refusedAt(t, l, at(shd))
		}},
		{"queue timeout", Options{QueueTimeout: 50 * time.Millisecond}, TimedOut, func(t *testing.T, l *Limiter, q *waiters) Reason {
			return refusedAt(t, l, at(shd))
		}},
		{"estimate over budget", Options{QueueTimeout: 250 * time.Millisecond}, OverBudget, func(t *testing.T, l *Limiter, q *waiters) Reason {
			l.svc.Store(int64(100 * time.Millisecond))
			q.acquire("c1", crit)
			q.acquire("c2", crit)
			return refusedAt(t, l, at(shd))
		}},
		{"pushed out by a higher level", Options{MaxQueue: 1, QueueTimeout: time.Hour}, QueueFull, func(t *testing.T, l *Limiter, q *waiters) Reason {
			var why Reason
			done := make(chan struct{})
			go func() {
				defer close(done)
				why = refusedAt(t, l, at(shd))
			}()
			synctest.Wait()
			q.acquire("c", crit)
			<-done
			return why
		}},
		{"deadline passed on arrival", Options{}, TimedOut, func(t *testing.T, l *Limiter, q *waiters) Reason {
			ctx, cancel := context.WithDeadline(at(shd), time.Now().Add(-time.Second))
			defer cancel()
			return refusedAt(t, l, ctx)
		}},
		{"deadline passes while queued", Options{QueueTimeout: time.Hour}, TimedOut, func(t *testing.T, l *Limiter, q *waiters) Reason {
			ctx, cancel := context.WithTimeout(at(shd), 30*time.Millisecond)
			defer cancel()
			return refusedAt(t, l, ctx)
		}},
		{"canceled on arrival", Options{}, 0, func(t *testing.T, l *Limiter, q *waiters) Reason {
			ctx, cancel := context.WithCancel(at(shd))
			cancel()
			return refusedAt(t, l, ctx)
		}},
		{"canceled while queued", Options{QueueTimeout: time.Hour}, 0, func(t *testing.T, l *Limiter, q *waiters) Reason {
			ctx, cancel := context.WithCancel(at(shd))
			time.AfterFunc(30*time.Millisecond, cancel)
			return refusedAt(t, l, ctx)
		}},
		{"TryAcquire finds no slot", Options{}, 0, func(t *testing.T, l *Limiter, q *waiters) Reason {
			if release, ok := l.TryAcquire(); ok {
				release()
				t.Error("TryAcquire() with the slot held = true")
			}
			return 0
		}},
		{"HTTP request times out", Options{QueueTimeout: 50 * time.Millisecond}, TimedOut, func(t *testing.T, l *Limiter, q *waiters) Reason {
			rec := httptest.NewRecorder()
			r := httptest.NewRequest("GET", "/", nil)
			r.Header.Set(priority.DefaultHeader, shd.String())
			l.Handler(http.NotFoundHandler()).ServeHTTP(rec, r)
			if rec.Code != http.StatusServiceUnavailable {
				t.Errorf("status = %d, want 503", rec.Code)
			}
			return TimedOut
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := tc.o
				o.Limit = 1
				o.Priority = priority.Header("")
				l := New(o)
				release, ok := l.TryAcquire()
				if !ok {
					t.Fatal("TryAcquire() on an idle Limiter failed")
				}
				q := &waiters{l: l}
				why := tc.run(t, l, q)
				if why != tc.want {
					t.Errorf("refused for %v, want %v", why, tc.want)
				}
				release()
				q.wait()
				s := l.Stats()
				var admitted, refused uint64
				for _, ls := range s.Levels {
					admitted += ls.Admitted
					refused += ls.Refused
				}
				if admitted != s.Admitted || refused != s.Refused {
					t.Errorf("levels sum to %d admitted, %d refused; totals %d, %d", admitted, refused, s.Admitted, s.Refused)
				}
				want := uint64(0)
				if why != 0 {
					want = 1
				}
				if got := s.Levels[shd.Index()].Refused; got != want {
					t.Errorf("Levels[sheddable].Refused = %d, want %d (refused: %v)", got, want, why)
				}
				checkIdle(t, l)
			})
		})
	}
}

// refusedAt calls l.Acquire(ctx) and returns why it was refused, 0 if it
// was not (a slot, released at once, or ctx's error).
func refusedAt(t *testing.T, l *Limiter, ctx context.Context) Reason {
	t.Helper()
	release, err := l.Acquire(ctx)
	if release != nil {
		release()
	}
	var re *RefusedError
	if errors.As(err, &re) {
		return re.Reason
	}
	return 0
}
