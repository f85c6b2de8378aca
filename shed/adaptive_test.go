package shed_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

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
