package peers

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/frontdoor-go/frontdoor/concurrency"
)

// concurrency.Limiter beside chi's Throttle and ThrottleBacklog: a bare
// handler, frontdoor and chi in one run, so that each reads as a ratio.

// The uncontended path: the limit is never reached.
func BenchmarkConcurrencyUncontended(b *testing.B) {
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"bare", ok},
		{"frontdoor", concurrency.New(concurrency.Options{Limit: 1 << 20}).Handler(ok)},
		{"chi.Throttle", middleware.Throttle(1 << 20)(ok)},
	} {
		b.Run(bc.name, func(b *testing.B) { serveConcurrency(b, bc.h) })
	}
}

// concurrencySpin is a handler of about 2µs of CPU, enough to keep a queue busy.
var concurrencySpin = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
	for t := time.Now(); time.Since(t) < 2*time.Microsecond; {
	}
})

// The contended path: one slot, 8 goroutines per P compete for it, the
// rest queue. The bare handler runs them all at once.
func BenchmarkConcurrencyContended(b *testing.B) {
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"bare", concurrencySpin},
		{"frontdoor", concurrency.New(concurrency.Options{Limit: 1, MaxQueue: 1 << 20, QueueTimeout: time.Minute}).Handler(concurrencySpin)},
		{"chi.ThrottleBacklog", middleware.ThrottleBacklog(1, 1<<20, time.Minute)(concurrencySpin)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetParallelism(8)
			serveConcurrency(b, bc.h)
		})
	}
}

// A refusal: the only slot is held and nothing may wait.
func BenchmarkConcurrencyRefusal(b *testing.B) {
	l := concurrency.New(concurrency.Options{Limit: 1, MaxQueue: -1})
	release, _ := l.TryAcquire()
	defer release()
	chi, unblock := heldChiThrottle()
	defer unblock()
	b.Run("frontdoor", func(b *testing.B) { serveConcurrency(b, l.Handler(concurrencySpin)) })
	b.Run("chi.Throttle", func(b *testing.B) { serveConcurrency(b, chi) })
}

// heldChiThrottle returns chi's Throttle(1) around concurrencySpin with its one slot
// taken by a request that runs until unblock is called.
func heldChiThrottle() (h http.Handler, unblock func()) {
	hold, held, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	h = middleware.Throttle(1)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			close(held)
			<-hold
			return
		}
		concurrencySpin(w, r)
	}))
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/hold", nil))
	}()
	<-held
	return h, func() { close(hold); <-done }
}

// What a refused request gets from each, with the limit taken.
func TestConcurrencyRefusalSideBySide(t *testing.T) {
	l := concurrency.New(concurrency.Options{Limit: 1, MaxQueue: -1})
	release, _ := l.TryAcquire()
	defer release()
	chi, unblock := heldChiThrottle()
	defer unblock()
	for _, tc := range []struct {
		name       string
		h          http.Handler
		code       int
		retryAfter string
	}{
		// frontdoor: 503 (the server is busy, not the client at fault),
		// with when to come back.
		{"frontdoor", l.Handler(concurrencySpin), http.StatusServiceUnavailable, "1"},
		// chi: 429, and Retry-After only with a RetryAfterFn.
		{"chi.Throttle", chi, http.StatusTooManyRequests, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tc.h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if rec.Code != tc.code || rec.Header().Get("Retry-After") != tc.retryAfter {
				t.Errorf("status, Retry-After = %d, %q, want %d, %q", rec.Code, rec.Header().Get("Retry-After"), tc.code, tc.retryAfter)
			}
		})
	}
}

// serveConcurrency serves h from every P, each goroutine with a writer that
// discards what it is given (a recorder would allocate on every write).
func serveConcurrency(b *testing.B, h http.Handler) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &concurrencyDiscard{h: http.Header{}}
		r := httptest.NewRequest("GET", "/", nil)
		for pb.Next() {
			h.ServeHTTP(w, r)
		}
	})
}

type concurrencyDiscard struct{ h http.Header }

func (d *concurrencyDiscard) Header() http.Header         { return d.h }
func (d *concurrencyDiscard) WriteHeader(int)             {}
func (d *concurrencyDiscard) Write(p []byte) (int, error) { return len(p), nil }
