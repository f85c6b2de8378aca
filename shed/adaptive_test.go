package shed_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/shed"
)

// A Shedder with no number: the limit finds itself.
func ExampleNew_adaptive() {
	s := shed.New(shed.Options{}) // Limit 0: the limit finds itself
	h := s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "hello")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	st := s.Stats()
	fmt.Println(rec.Code, st.Admitted, st.Limit > 0, st.Adaptive != nil)
	// Output: 200 1 true true
}

// In front of a handler that waits for one of 10 backend connections for
// 100 ms (capacity 100/s), at twice that load from a cold start, the limit
// finds the pool: goodput near capacity, refusals for the rest.
func TestAdaptiveFindsPool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pool := make(chan struct{}, 10)
		var done atomic.Int64
		s := shed.New(shed.Options{})
		h := s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			pool <- struct{}{}
			time.Sleep(100 * time.Millisecond)
			<-pool
			done.Add(1)
		}))
		var wg sync.WaitGroup
		serve := func() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
			}()
		}
		var mid int64
		for i := range 2000 { // 200/s for 10 s
			if i == 1000 {
				mid = done.Load()
			}
			serve()
			time.Sleep(5 * time.Millisecond)
		}
		wg.Wait()
		st := s.Stats()
		if got := done.Load() - mid; got < 450 {
			t.Errorf("completed %d in the last 5 s, want >= 450 of the pool's 500", got)
		}
		if st.InFlight != 0 {
			t.Errorf("InFlight = %d after the run, want 0", st.InFlight)
		}
		if st.Refused == 0 {
			t.Error("nothing shed at twice the capacity")
		}
		if b := st.Adaptive.Baseline; b < 90*time.Millisecond || b > 130*time.Millisecond {
			t.Errorf("Baseline = %v, want about 100ms", b)
		}
		if st.Limit < 10 || st.Limit > 25 {
			t.Errorf("Limit = %d, want a little above the pool of 10", st.Limit)
		}
	})
}

// The README's composition with no numbers: a Shedder in front of a
// concurrency.Limiter, both finding their limits, in front of 4 workers
// of 8 ms at twice their capacity with clients that give up after
// 100 ms. The Shedder must not read the Limiter's queue as overload of its
// own: the pair serves as much as the Limiter alone, and at 0.8x nothing
// is refused.
func TestAdaptiveStackedWithConcurrency(t *testing.T) {
	for _, load := range []float64{0.8, 2} {
		t.Run(fmt.Sprintf("%.1fx", load), func(t *testing.T) {
			alone, aloneRefused := runWorkers(t, load, false)
			stacked, refused := runWorkers(t, load, true)
			t.Logf("completed in time: %d alone (%d refused), %d stacked (%d refused)", alone, aloneRefused, stacked, refused)
			if float64(stacked) < 0.97*float64(alone) {
				t.Errorf("stacked completed %d in time, want >= 97%% of the Limiter alone's %d", stacked, alone)
			}
			if load < 1 && refused > 0 {
				t.Errorf("%d refused at %.1fx, want 0", refused, load)
			}
		})
	}
}

// runWorkers sends load × 500/s for 10 s to a handler that waits for one
// of 4 workers for 8 ms, behind a concurrency.Limiter with no number, and
// a Shedder with no number in front of it if stacked. It returns the
// requests completed in time over the last 5 s and the requests refused.
func runWorkers(t *testing.T, load float64, stacked bool) (done, refused int64) {
	synctest.Test(t, func(t *testing.T) {
		workers := make(chan struct{}, 4)
		var ok, mid, no atomic.Int64
		h := concurrency.New(concurrency.Options{}).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			workers <- struct{}{}
			time.Sleep(8 * time.Millisecond)
			<-workers
			if r.Context().Err() == nil {
				ok.Add(1)
			}
		}))
		if stacked {
			h = shed.New(shed.Options{}).Handler(h)
		}
		var wg sync.WaitGroup
		n := int(load * 5000)
		gap := time.Duration(float64(10*time.Second) / float64(n))
		for i := range n {
			if i == n/2 {
				mid.Store(ok.Load())
			}
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil).WithContext(ctx))
				if rec.Code == http.StatusServiceUnavailable {
					no.Add(1)
				}
			})
			time.Sleep(gap)
		}
		wg.Wait()
		done, refused = ok.Load()-mid.Load(), no.Load()
	})
	return done, refused
}
