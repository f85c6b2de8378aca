package concurrency_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/concurrency"
)

// Slots that find themselves, in front of a handler that waits for one of
// 4 workers for 8 ms (capacity 500/s), at twice that load from a cold
// start with clients that give up after 100 ms: the limit finds the
// workers, the queue absorbs the bursts, goodput stays near capacity.
//
// Requests come through Handler, or through Acquire as a job loop would.
func TestAdaptiveFindsWorkers(t *testing.T) {
	for _, via := range []string{"Handler", "Acquire"} {
		t.Run(via, func(t *testing.T) { testAdaptiveFindsWorkers(t, via) })
	}
}

func testAdaptiveFindsWorkers(t *testing.T, via string) {
	synctest.Test(t, func(t *testing.T) {
		workers := make(chan struct{}, 4)
		var done, late atomic.Int64
		l := concurrency.New(concurrency.Options{QueueTimeout: 50 * time.Millisecond})
		work := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			workers <- struct{}{}
			time.Sleep(8 * time.Millisecond)
			<-workers
			if r.Context().Err() != nil {
				late.Add(1)
				return
			}
			done.Add(1)
		})
		h := l.Handler(work)
		var wg sync.WaitGroup
		var mid int64
		for i := range 10000 { // 1000/s for 10 s
			if i == 5000 {
				mid = done.Load()
			}
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				r := httptest.NewRequest("GET", "/", nil).WithContext(ctx)
				if via == "Handler" {
					h.ServeHTTP(httptest.NewRecorder(), r)
					return
				}
				release, err := l.Acquire(ctx)
				if err != nil {
					return
				}
				defer release()
				work.ServeHTTP(nil, r)
			})
			time.Sleep(time.Millisecond)
		}
		wg.Wait()
		st := l.Stats()
		t.Logf("completed %d in time, %d late; %+v %+v", done.Load()-mid, late.Load(), st.Limit, *st.Adaptive)
		if got := done.Load() - mid; got < 2250 {
			t.Errorf("completed %d in time in the last 5 s, want >= 2250 of the workers' 2500", got)
		}
		if st.Running != 0 || st.Queued != 0 {
			t.Errorf("Running, Queued = %d, %d after the run, want 0, 0", st.Running, st.Queued)
		}
		if st.Limit < 4 || st.Limit > 8 {
			t.Errorf("Limit = %d, want a little above the 4 workers", st.Limit)
		}
		if st.MaxQueue != concurrency.DefaultQueueFactor*st.Limit {
			t.Errorf("MaxQueue = %d, want %d × Limit %d", st.MaxQueue, concurrency.DefaultQueueFactor, st.Limit)
		}
		// The limit starts open and meets twice the capacity from the
		// first instant, so no window ever sees the workers without a
		// queue in front of them: the baseline is the latency of the
		// first windows, which already queued for up to one more run.
		if b := st.Adaptive.Baseline; b < 7*time.Millisecond || b > 16*time.Millisecond {
			t.Errorf("Baseline = %v, want 8ms to 16ms", b)
		}
		if st.Adaptive.QueueWait == 0 {
			t.Error("QueueWait = 0 at twice the capacity")
		}
	})
}

// With the limit and the queue timeout left to the Limiter, a request
// waits at most DefaultQueueRounds runs of the handler, not
// DefaultQueueTimeout: a queued request should reach its client while the
// client still waits. A run is planned with the spread of durations, but
// at no more than twice their average: a budget that grew with the spread
// alone would let requests wait until their clients gave up exactly when
// service is least predictable.
func TestAdaptiveQueueBudgetFollowsServiceTime(t *testing.T) {
	const rounds = concurrency.DefaultQueueRounds
	for _, tc := range []struct {
		name      string
		durations []time.Duration  // the handler's, in turn
		run       [2]time.Duration // the shortest and longest run the budget may plan
	}{
		// 10ms, and twice a deviation that has decayed to nothing.
		{"steady", []time.Duration{10 * time.Millisecond}, [2]time.Duration{8 * time.Millisecond, 11 * time.Millisecond}},
		// About 6ms on average, 17ms planned with the spread: twice the
		// average caps the run at about 12ms.
		{"spread", []time.Duration{1 * time.Millisecond, 11 * time.Millisecond}, [2]time.Duration{5 * time.Millisecond, 14 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := concurrency.New(concurrency.Options{})
				n := 0
				h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					time.Sleep(tc.durations[n%len(tc.durations)])
					n++
				}))
				for range 50 {
					h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
				}
				var releases []func()
				for {
					release, ok := l.TryAcquire()
					if !ok {
						break
					}
					releases = append(releases, release)
				}
				start := time.Now()
				_, err := l.Acquire(context.Background())
				waited := time.Since(start)
				for _, release := range releases {
					release()
				}
				var refused *concurrency.RefusedError
				if !errors.As(err, &refused) || refused.Reason != concurrency.TimedOut {
					t.Fatalf("Acquire with every slot held = %v, want a TimedOut refusal", err)
				}
				if lo, hi := rounds*tc.run[0], rounds*tc.run[1]; waited < lo || waited > hi {
					t.Errorf("waited %v, want between %v and %v", waited, lo, hi)
				}
			})
		})
	}
}
