package concurrency

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// One slow request among fast ones moves the plan by a bounded factor; a
// lasting change is still followed within a few requests.
func TestEstimateSurvivesOutlier(t *testing.T) {
	l := New(Options{Limit: 1})
	for range 50 {
		l.observe(time.Millisecond)
	}
	steady := l.planned()
	l.observe(5 * time.Second)
	if got := l.planned(); got > 2*steady {
		t.Errorf("after one 5s outlier planned = %v, want <= %v (2 × steady)", time.Duration(got), 2*time.Duration(steady))
	}
	n := 0
	for l.planned() < int64(5*time.Second) && n < 100 {
		l.observe(5 * time.Second)
		n++
	}
	if n > 20 {
		t.Errorf("planned reached 5s after %d samples of 5s, want <= 20", n)
	}
}

// fastSlow sleeps 5s on /slow and 1ms otherwise.
var fastSlow = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/slow" {
		time.Sleep(5 * time.Second)
		return
	}
	time.Sleep(time.Millisecond)
})

// After one slow request among fast ones, requests that find the slot
// busy still queue and run: the limiter is not blinded by the outlier.
func TestSpikeKeepsAdmitting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Limit: 1, MaxQueue: 100}) // QueueTimeout 100ms
		h := l.Handler(fastSlow)
		for _, p := range append(repeat("/fast", 50), "/slow") {
			_, d := do(h, p)
			<-d
		}
		var recs []*httptest.ResponseRecorder
		for range 30 {
			// One running, one first in line, one second in line: each
			// waits at most 2ms.
			var dones []chan struct{}
			for range 3 {
				rec, d := do(h, "/fast")
				recs = append(recs, rec)
				dones = append(dones, d)
				synctest.Wait()
			}
			for _, d := range dones {
				<-d
			}
		}
		refused := 0
		for _, rec := range recs {
			if rec.Code != http.StatusOK {
				refused++
			}
		}
		if s := l.Stats(); refused != 0 || s.Refused != 0 {
			t.Errorf("after a spike: %d of %d refused (OverBudget %d), want 0; planned %v",
				refused, len(recs), s.OverBudget, time.Duration(l.planned()))
		}
		checkIdle(t, l)
	})
}

func repeat(s string, n int) []string {
	r := make([]string, n)
	for i := range r {
		r[i] = s
	}
	return r
}

// A request that would be first in line is not refused on the estimate
// alone, however stale: it waits up to its budget.
func TestFirstInLineWaitsDespiteEstimate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hold     time.Duration // how long the running request keeps the slot
		deadline time.Duration // context deadline of the newcomer, 0 = none
		code     int
		after    time.Duration
	}{
		{"slot frees in time", 20 * time.Millisecond, 0, http.StatusOK, 20 * time.Millisecond},
		{"slot stays busy", time.Second, 0, http.StatusServiceUnavailable, 100 * time.Millisecond},
		// The budget is the deadline less the (estimated) service time.
		{"deadline shortens the wait", time.Second, 10*time.Second + 70*time.Millisecond, http.StatusServiceUnavailable, 70 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := New(Options{Limit: 1}) // QueueTimeout 100ms
				h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/hold" {
						time.Sleep(tc.hold)
					}
				}))
				l.svc.Store(int64(10 * time.Second)) // an estimate far from the truth
				_, hold := do(h, "/hold")
				synctest.Wait()
				ctx := context.Background()
				if tc.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.deadline)
					defer cancel()
				}
				start := time.Now()
				rec, d := doCtx(ctx, h, "/next")
				<-d
				if got := time.Since(start); rec.Code != tc.code || got != tc.after {
					t.Errorf("Code %d after %v, want %d after %v", rec.Code, got, tc.code, tc.after)
				}
				if s := l.Stats(); s.OverBudget != 0 {
					t.Errorf("OverBudget = %d, want 0", s.OverBudget)
				}
				<-hold
				checkIdle(t, l)
			})
		})
	}
}

// A request whose estimated wait takes its whole budget is refused at
// once: for a limit that finds itself the budget is a whole number of
// planned runs, and the places whose estimate is exactly that would wait
// it out and be refused late at the first run that takes longer than
// planned.
func TestEstimateAtBudgetRefusedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{})
		l.ctl.Set(2)
		l.svc.Store(int64(10 * time.Millisecond)) // planned 10ms: a budget of DefaultQueueRounds × 10ms
		var holds []func()
		for range 2 {
			release, ok := l.TryAcquire()
			if !ok {
				t.Fatal("TryAcquire on a free slot failed")
			}
			holds = append(holds, release)
		}
		// Two places a run: the last two expect the whole budget.
		var wg sync.WaitGroup
		for range 2 * DefaultQueueRounds {
			wg.Go(func() {
				if release, err := l.Acquire(context.Background()); err == nil {
					release()
				}
			})
			synctest.Wait()
		}
		if s := l.Stats(); s.OverBudget != 2 || s.Queued != 2*DefaultQueueRounds-2 {
			t.Errorf("OverBudget, Queued = %d, %d, want 2, %d", s.OverBudget, s.Queued, 2*DefaultQueueRounds-2)
		}
		for _, release := range holds {
			release()
		}
		wg.Wait()
		checkIdle(t, l)
	})
}
