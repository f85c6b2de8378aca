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

var okBody = []byte("ok")

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Write(okBody)
})

// witness counts the requests inside a handler, and the most at once,
// apart from the Shedder's own counter.
type witness struct{ now, max atomic.Int64 }

func (w *witness) enter() {
	n := w.now.Add(1)
	for m := w.max.Load(); n > m && !w.max.CompareAndSwap(m, n); m = w.max.Load() {
	}
}

func (w *witness) leave() { w.now.Add(-1) }

// fill returns a Shedder whose counter already holds n requests in flight.
func fill(opts shed.Options, n int) *shed.Shedder {
	if opts.Counter == nil {
		opts.Counter = new(inflight.Counter)
	}
	for range n {
		opts.Counter.Inc()
	}
	return shed.New(opts)
}

func serve(h http.Handler) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	return rec
}

func TestHandler(t *testing.T) {
	tests := []struct {
		name       string
		opts       shed.Options
		inFlight   int
		wantStatus int
		wantHeader map[string]string
		wantBody   string
	}{
		{
			name: "admitted below limit", opts: shed.Options{Limit: 2}, inFlight: 1,
			wantStatus: 200, wantBody: "ok",
			wantHeader: map[string]string{"Retry-After": ""},
		},
		{
			name: "refused at limit", opts: shed.Options{Limit: 2}, inFlight: 2,
			wantStatus: 503, wantBody: "503 service overloaded, retry later\n",
			wantHeader: map[string]string{
				"Retry-After":            "1",
				"Content-Type":           "text/plain; charset=utf-8",
				"Content-Length":         "36",
				"X-Content-Type-Options": "",
				"Connection":             "",
			},
		},
		{
			name: "refused with Connection close", opts: shed.Options{Limit: 1, CloseConnection: true}, inFlight: 1,
			wantStatus: 503,
			wantHeader: map[string]string{"Connection": "close"},
		},
		{
			name: "custom Reject", inFlight: 1,
			opts: shed.Options{Limit: 1, Reject: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Shed", "yes")
				http.Error(w, "busy", http.StatusServiceUnavailable)
			})},
			wantStatus: 503, wantBody: "busy\n",
			wantHeader: map[string]string{"X-Shed": "yes", "Retry-After": ""},
		},
		{
			name: "exempt passes at limit", inFlight: 1,
			opts:       shed.Options{Limit: 1, Exempt: func(r *http.Request) bool { return r.URL.Path == "/" }},
			wantStatus: 200, wantBody: "ok",
		},
		{
			name: "not exempt refused", inFlight: 1,
			opts:       shed.Options{Limit: 1, Exempt: func(r *http.Request) bool { return r.URL.Path == "/health" }},
			wantStatus: 503,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fill(tt.opts, tt.inFlight)
			rec := serve(s.Handler(okHandler))
			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			if tt.wantBody != "" && rec.Body.String() != tt.wantBody {
				t.Errorf("body = %q, want %q", rec.Body.String(), tt.wantBody)
			}
			for k, want := range tt.wantHeader {
				if got := rec.Header().Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			if got := s.Counter().Load(); got != int64(tt.inFlight) {
				t.Errorf("in flight after the request = %d, want %d", got, tt.inFlight)
			}
		})
	}
}

func TestRetryAfterRounding(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "1"}, // default
		{time.Nanosecond, "1"},
		{time.Second, "1"},
		{time.Second + time.Nanosecond, "2"},
		{1500 * time.Millisecond, "2"},
		{30 * time.Second, "30"},
	}
	for _, tt := range tests {
		s := fill(shed.Options{Limit: 1, RetryAfter: tt.d}, 1)
		if got := serve(s.Handler(okHandler)).Header().Get("Retry-After"); got != tt.want {
			t.Errorf("RetryAfter %v: Retry-After = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestNewPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"zero limit", func() { shed.New(shed.Options{}) }},
		{"negative limit", func() { shed.Limit(-1) }},
		{"negative RetryAfter", func() { shed.New(shed.Options{Limit: 1, RetryAfter: -time.Second}) }},
		{"SetLimit zero", func() { shed.New(shed.Options{Limit: 1}).SetLimit(0) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			tt.f()
		})
	}
}

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
	if st.Admitted != limit || st.Shed != clients-limit {
		t.Errorf("Stats() = %+v, want Admitted %d, Shed %d", st, limit, clients-limit)
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

func TestHandlerPanicReleases(t *testing.T) {
	for _, v := range []any{"boom", http.ErrAbortHandler} {
		s := shed.New(shed.Options{Limit: 1})
		func() {
			defer func() { recover() }()
			serve(s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic(v) })))
		}()
		if got := s.Counter().Load(); got != 0 {
			t.Errorf("panic(%v): in flight = %d, want 0", v, got)
		}
		if got := serve(s.Handler(okHandler)).Code; got != 200 {
			t.Errorf("panic(%v): next status = %d, want 200", v, got)
		}
	}
}

// nopWriter is a ResponseWriter that keeps its header map between requests,
// so allocation counts show only what the middleware allocates.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(int)             {}

func TestNoAllocations(t *testing.T) {
	tests := []struct {
		name     string
		inFlight int
	}{{"admitted", 0}, {"refused", 1}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := fill(shed.Options{Limit: 1, CloseConnection: true}, tt.inFlight).Handler(okHandler)
			w := &nopWriter{h: make(http.Header)}
			r := httptest.NewRequest("GET", "/", nil)
			if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) }); n != 0 {
				t.Errorf("allocations per request = %v, want 0", n)
			}
		})
	}
}
