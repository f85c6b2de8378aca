package peers

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/frontdoor-go/frontdoor/shed"
)

// shed.Shedder beside chi's Throttle with no backlog: a bare handler,
// frontdoor and chi in one run, so that each reads as a ratio.

var shedBody = []byte("ok")

var shedOK = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Write(shedBody)
})

// shedChiThrottle is chi's Throttle set to answer like shed: 503 with
// Retry-After. Its backlog is 0, so a full limit refuses at once.
func shedChiThrottle(limit int) func(http.Handler) http.Handler {
	return middleware.ThrottleWithOpts(middleware.ThrottleOpts{
		Limit:          limit,
		BacklogTimeout: time.Minute,
		StatusCode:     http.StatusServiceUnavailable,
		RetryAfterFn:   func(bool) time.Duration { return time.Second },
	})
}

// The path of a request that is let through: the limit is never reached.
func BenchmarkShedAdmitted(b *testing.B) {
	const limit = 1 << 12
	b.Run("bare", func(b *testing.B) { serveShed(b, shedOK) })
	b.Run("frontdoor", func(b *testing.B) { serveShed(b, shed.Limit(limit)(shedOK)) })
	b.Run("chi.Throttle", func(b *testing.B) { serveShed(b, shedChiThrottle(limit)(shedOK)) })
}

// The path of a request that is turned away: one request holds the only
// place for the whole benchmark. The bare handler, which refuses nothing,
// is the cost of the cheapest answer.
func BenchmarkShedRefused(b *testing.B) {
	b.Run("bare", func(b *testing.B) { serveShed(b, shedOK) })
	b.Run("frontdoor", func(b *testing.B) {
		h, unblock := heldShed(shed.Limit(1))
		defer unblock()
		serveShed(b, h)
	})
	b.Run("chi.Throttle", func(b *testing.B) {
		h, unblock := heldShed(shedChiThrottle(1))
		defer unblock()
		serveShed(b, h)
	})
}

// What a refused request gets from each, with the limit taken: the same
// status and Retry-After, so the benchmarks compare like with like.
func TestShedRefusalSideBySide(t *testing.T) {
	for _, tc := range []struct {
		name string
		mw   func(http.Handler) http.Handler
	}{
		{"frontdoor", shed.Limit(1)},
		{"chi.Throttle", shedChiThrottle(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, unblock := heldShed(tc.mw)
			defer unblock()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
				t.Errorf("status, Retry-After = %d, %q, want 503, \"1\"", rec.Code, rec.Header().Get("Retry-After"))
			}
		})
	}
}

// Shedding in chi: r.Use applies the limit to every route of the router.
func Example_shedInChi() {
	s := shed.New(shed.Options{Limit: 50})
	r := chi.NewRouter()
	r.Use(s.Handler)
	r.Get("/hello", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello\n"))
	})

	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest("GET", "/hello", nil))
	fmt.Print(rec.Body.String(), s.Stats().Admitted)
	// Output:
	// hello
	// 1
}

// heldShed wraps shedOK in mw with its only place taken by a request that
// runs until unblock is called.
func heldShed(mw func(http.Handler) http.Handler) (h http.Handler, unblock func()) {
	hold, held, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	h = mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			close(held)
			<-hold
			return
		}
		shedOK(w, r)
	}))
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/hold", nil))
	}()
	<-held
	return h, func() { close(hold); <-done }
}

// serveShed serves h from every P, each goroutine with a writer that keeps
// its header map, so B/op and allocs/op show only the middleware's own.
func serveShed(b *testing.B, h http.Handler) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &shedDiscard{h: make(http.Header)}
		r := httptest.NewRequest("GET", "/", nil)
		for pb.Next() {
			h.ServeHTTP(w, r)
		}
	})
}

type shedDiscard struct{ h http.Header }

func (d *shedDiscard) Header() http.Header         { return d.h }
func (d *shedDiscard) WriteHeader(int)             {}
func (d *shedDiscard) Write(p []byte) (int, error) { return len(p), nil }
