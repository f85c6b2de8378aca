package concurrency

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestAcquire(t *testing.T) {
	bg := func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
	for _, tc := range []struct {
		name    string
		o       Options
		svc     time.Duration // a steady service time, 0 = none yet
		hold    time.Duration // the one slot is held this long; 0 = free
		ahead   int           // callers already queued
		ctx     func() (context.Context, context.CancelFunc)
		want    Reason        // refused for this reason; 0 = see wantErr
		wantErr error         // ctx's error; nil with want 0 = a slot
		after   time.Duration // when Acquire returns
	}{
		{name: "free slot", ctx: bg},
		{name: "slot frees in time", hold: 50 * time.Millisecond, ctx: bg, after: 50 * time.Millisecond},
		{name: "queue full", o: Options{MaxQueue: -1}, hold: time.Hour, ctx: bg, want: QueueFull},
		{name: "wait budget runs out", hold: time.Hour, ctx: bg, want: TimedOut, after: DefaultQueueTimeout},
		{name: "over budget", o: Options{QueueTimeout: 250 * time.Millisecond}, svc: 100 * time.Millisecond,
			hold: time.Hour, ahead: 2, ctx: bg, want: OverBudget},
		{name: "no timeout", o: Options{QueueTimeout: -1}, hold: time.Hour, ctx: bg, after: time.Hour},
		{name: "deadline while queued", hold: time.Hour, o: Options{QueueTimeout: time.Hour}, ctx: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 30*time.Millisecond)
		}, want: TimedOut, after: 30 * time.Millisecond},
		{name: "deadline passed on arrival, slot free", ctx: func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		}, want: TimedOut},
		{name: "canceled while queued", hold: time.Hour, ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(30*time.Millisecond, cancel)
			return ctx, cancel
		}, wantErr: context.Canceled, after: 30 * time.Millisecond},
		{name: "canceled on arrival, slot free", ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, wantErr: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := tc.o
				o.Limit = 1
				l := New(o)
				l.svc.Store(int64(tc.svc))
				var holder sync.WaitGroup
				if tc.hold > 0 {
					release, ok := l.TryAcquire()
					if !ok {
						t.Fatal("TryAcquire() on an idle Limiter failed")
					}
					holder.Go(func() {
						time.Sleep(tc.hold)
						release()
					})
				}
				ctx, cancel := tc.ctx()
				defer cancel()
				qctx, qcancel := context.WithCancel(context.Background())
				for range tc.ahead {
					holder.Go(func() {
						if release, err := l.Acquire(qctx); err == nil {
							release()
						}
					})
					synctest.Wait()
				}
				start := time.Now()
				release, err := l.Acquire(ctx)
				if got := time.Since(start); got != tc.after {
					t.Errorf("Acquire returned after %v, want %v", got, tc.after)
				}
				var refused *RefusedError
				switch {
				case tc.want != 0:
					if !errors.As(err, &refused) || refused.Reason != tc.want || refused.RetryAfter < time.Second {
						t.Errorf("Acquire() error = %v, want a *RefusedError with Reason %v and RetryAfter >= 1s", err, tc.want)
					}
				case tc.wantErr != nil:
					if err != tc.wantErr {
						t.Errorf("Acquire() error = %v, want %v", err, tc.wantErr)
					}
				case err != nil:
					t.Errorf("Acquire() error = %v, want nil", err)
				}
				if (err == nil) != (release != nil) {
					t.Errorf("Acquire() = release %v, error %v: want exactly one nil", release != nil, err)
				}
				if release != nil {
					if got := l.Stats().Running; got != 1 {
						t.Errorf("Running while held = %d, want 1", got)
					}
					release()
				}
				qcancel()
				holder.Wait()
				s := l.Stats()
				// The callers queued ahead leave when qctx is canceled.
				wantAbandoned, wantRefused := uint64(tc.ahead), uint64(0)
				if tc.wantErr != nil {
					wantAbandoned++
				}
				if tc.want != 0 {
					wantRefused = 1
				}
				if s.Abandoned != wantAbandoned || s.Refused != wantRefused {
					t.Errorf("Abandoned, Refused = %d, %d, want %d, %d", s.Abandoned, s.Refused, wantAbandoned, wantRefused)
				}
				checkIdle(t, l)
			})
		})
	}
}

// Calling release twice frees one slot, not two.
func TestReleaseTwice(t *testing.T) {
	for _, tc := range []struct {
		name    string
		acquire func(*Limiter) func()
	}{
		{"Acquire", func(l *Limiter) func() {
			release, err := l.Acquire(context.Background())
			if err != nil {
				t.Fatalf("Acquire() error = %v", err)
			}
			return release
		}},
		{"TryAcquire", func(l *Limiter) func() {
			release, ok := l.TryAcquire()
			if !ok {
				t.Fatal("TryAcquire() = false, want true")
			}
			return release
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(Options{Limit: 2, MaxQueue: -1})
			a := tc.acquire(l)
			b := tc.acquire(l)
			a()
			a()
			if got := l.Stats().Running; got != 1 {
				t.Fatalf("Running after releasing one of two slots twice = %d, want 1", got)
			}
			c := tc.acquire(l)
			if _, ok := l.TryAcquire(); ok {
				t.Error("TryAcquire() with both slots held = true, want false")
			}
			b()
			c()
			c()
			checkIdle(t, l)
		})
	}
}

func TestTryAcquire(t *testing.T) {
	for _, tc := range []struct {
		name    string
		running int  // slots held
		waiter  bool // one caller queued
		want    bool
	}{
		{"idle", 0, false, true},
		{"a slot free", 1, false, true},
		{"every slot busy", 2, false, false},
		// A caller waits: the next free slot is its, and TryAcquire does
		// not overtake it, even in the instant before the slot is handed
		// over (the test frees the count by hand to stand in that instant).
		{"someone waits", 2, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := New(Options{Limit: 2, QueueTimeout: time.Hour})
				var held []func()
				for range tc.running {
					release, ok := l.TryAcquire()
					if !ok {
						t.Fatal("TryAcquire() with a free slot = false")
					}
					held = append(held, release)
				}
				var wg sync.WaitGroup
				if tc.waiter {
					wg.Go(func() {
						if release, err := l.Acquire(context.Background()); err == nil {
							release()
						}
					})
					synctest.Wait()
					// Free a slot without handing it to the waiter yet, as
					// a release racing with TryAcquire would.
					l.running.Dec()
				}
				release, ok := l.TryAcquire()
				if ok != tc.want || (release != nil) != ok {
					t.Errorf("TryAcquire() = %v, %v, want %v", release != nil, ok, tc.want)
				}
				if ok {
					release()
				}
				if tc.waiter {
					l.running.TryInc(l.limit) // take back the slot freed by hand
					held[0]()
					held = held[1:]
				}
				wg.Wait()
				for _, r := range held {
					r()
				}
				if s := l.Stats(); s.Refused != 0 {
					t.Errorf("Refused = %d, want 0: a failed TryAcquire is not a refusal", s.Refused)
				}
				checkIdle(t, l)
			})
		})
	}
}

// Acquire and Handler share the slots and the queue: an HTTP request
// queued behind an Acquire holder runs when it releases, and one refused
// gets the usual 503.
func TestAcquireSharesSlotsWithHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Limit: 1, MaxQueue: 1, QueueTimeout: time.Hour})
		h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		release, err := l.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		queued, d1 := do(h, "/queued")
		synctest.Wait()
		refused, d2 := do(h, "/refused")
		<-d2
		if refused.Code != http.StatusServiceUnavailable {
			t.Errorf("with the slot held and the queue full: Code = %d, want 503", refused.Code)
		}
		release()
		<-d1
		if queued.Code != http.StatusOK {
			t.Errorf("queued behind Acquire: Code = %d, want 200", queued.Code)
		}
		if s := l.Stats(); s.Admitted != 2 || s.QueueFull != 1 {
			t.Errorf("Admitted, QueueFull = %d, %d, want 2, 1", s.Admitted, s.QueueFull)
		}
		checkIdle(t, l)
	})
}

// Many callers of Acquire never hold more than Limit slots.
func TestAcquireLimitNeverExceeded(t *testing.T) {
	const limit = 3
	l := New(Options{Limit: limit, MaxQueue: 4, QueueTimeout: time.Second})
	var cur, peak atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 200 {
				release, err := l.Acquire(context.Background())
				if err != nil {
					continue
				}
				n := cur.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				runtime.Gosched()
				cur.Add(-1)
				release()
				release()
			}
		})
	}
	wg.Wait()
	if got := peak.Load(); got > limit {
		t.Errorf("peak holders = %d, want <= %d", got, limit)
	}
	if s := l.Stats(); s.Admitted+s.Refused != 32*200 {
		t.Errorf("Admitted + Refused = %d + %d, want %d", s.Admitted, s.Refused, 32*200)
	}
	checkIdle(t, l)
}

func TestRefusedErrorString(t *testing.T) {
	for _, tc := range []struct {
		err  RefusedError
		want string
	}{
		{RefusedError{QueueFull, time.Second}, "concurrency: refused (queue full), retry after 1s"},
		{RefusedError{OverBudget, 3 * time.Second}, "concurrency: refused (over budget), retry after 3s"},
		{RefusedError{TimedOut, time.Minute}, "concurrency: refused (timed out), retry after 1m0s"},
		{RefusedError{Reason(9), time.Second}, "concurrency: refused (Reason(9)), retry after 1s"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}
