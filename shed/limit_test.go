package shed_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/shed"
)

// witness counts the requests inside a handler, and the most at once,
// apart from the Shedder's own counter.
type witness struct{ now, max atomic.Int64 }

func (w *witness) enter() {
	n := w.now.Add(1)
	for m := w.max.Load(); n > m && !w.max.CompareAndSwap(m, n); m = w.max.Load() {
	}
}

func (w *witness) leave() { w.now.Add(-1) }

// TestBurst sends 200 requests at once, each admitted one held inside the
// handler, and checks that exactly the limit got in.
func TestBurst(t *testing.T) {
	const clients, limit = 200, 50
	s := shed.New(shed.Options{Limit: limit})
	var in witness
	hold := make(chan struct{})
	h := s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in.enter()
		defer in.leave()
		<-hold
	}))
	start := make(chan struct{})
	var answered sync.WaitGroup
	var done sync.WaitGroup
	answered.Add(clients - limit)
	var refused atomic.Int64
	for range clients {
		done.Go(func() {
			<-start
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if rec.Code == http.StatusServiceUnavailable {
				refused.Add(1)
				answered.Done()
			}
		})
	}
	close(start)
	answered.Wait() // the 150 refusals come back while 50 are held
	if got := s.Counter().Load(); got != limit {
		t.Errorf("in flight during the burst = %d, want %d", got, limit)
	}
	// Admitted goroutines may still be on their way into the handler.
	for deadline := time.Now().Add(5 * time.Second); in.now.Load() < limit && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	close(hold)
	done.Wait()
	st := s.Stats()
	if st.Admitted != limit || st.Refused != clients-limit {
		t.Errorf("Stats() = %+v, want Admitted %d, Refused %d", st, limit, clients-limit)
	}
	if got := in.max.Load(); got != limit {
		t.Errorf("max inside the handler = %d, want %d", got, limit)
	}
	if st.InFlight != 0 || st.Peak != limit {
		t.Errorf("InFlight = %d, Peak = %d, want 0 and %d", st.InFlight, st.Peak, limit)
	}
}

func TestSetLimit(t *testing.T) {
	s := shed.New(shed.Options{Limit: 10})
	release := make(chan struct{})
	entered := make(chan struct{})
	blocking := s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	}))
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { serve(blocking) })
		<-entered
	}
	s.SetLimit(5)
	if got := serve(s.Handler(okHandler)).Code; got != 503 {
		t.Errorf("status with 10 in flight after SetLimit(5) = %d, want 503", got)
	}
	for range 6 { // down to 4 in flight, one below the new limit
		release <- struct{}{}
	}
	for s.Counter().Load() != 4 {
		time.Sleep(time.Millisecond)
	}
	if got := serve(s.Handler(okHandler)).Code; got != 200 {
		t.Errorf("status with 4 in flight, limit 5 = %d, want 200", got)
	}
	s.SetLimit(20)
	if got := s.Limit(); got != 20 {
		t.Errorf("Limit() = %d, want 20", got)
	}
	close(release)
	wg.Wait()
	if got := s.Counter().Load(); got != 0 {
		t.Errorf("in flight at the end = %d, want 0", got)
	}
}

// TestSharedCounter checks that two Shedders on one Counter share one count.
func TestSharedCounter(t *testing.T) {
	var c inflight.Counter
	a := shed.New(shed.Options{Limit: 1, Counter: &c})
	b := shed.New(shed.Options{Limit: 1, Counter: &c})
	var got int
	h := a.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = serve(b.Handler(okHandler)).Code
	}))
	serve(h)
	if got != 503 {
		t.Errorf("status from b while a holds the shared count = %d, want 503", got)
	}
	if n := c.Load(); n != 0 {
		t.Errorf("shared count after = %d, want 0", n)
	}
}
