package shed_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/frontdoor-go/frontdoor/shed"
)

// chiThrottle is chi's Throttle set to answer like shed: 503 with
// Retry-After. Its backlog is 0, so a full limit refuses at once.
func chiThrottle(limit int) func(http.Handler) http.Handler {
	return middleware.ThrottleWithOpts(middleware.ThrottleOpts{
		Limit:          limit,
		BacklogTimeout: time.Minute,
		StatusCode:     http.StatusServiceUnavailable,
		RetryAfterFn:   func(bool) time.Duration { return time.Second },
	})
}

// runParallel serves h from every P with a writer per goroutine that keeps
// its header map, so B/op and allocs/op show only the middleware's own.
func runParallel(b *testing.B, h http.Handler) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &nopWriter{h: make(http.Header)}
		r := httptest.NewRequest("GET", "/", nil)
		for pb.Next() {
			h.ServeHTTP(w, r)
		}
	})
}

// BenchmarkAdmitted compares the path of a request that is let through.
func BenchmarkAdmitted(b *testing.B) {
	const limit = 1 << 12 // never reached
	b.Run("bare", func(b *testing.B) { runParallel(b, okHandler) })
	b.Run("shed", func(b *testing.B) { runParallel(b, shed.Limit(limit)(okHandler)) })
	b.Run("shed-adaptive", func(b *testing.B) { runParallel(b, shed.Limit(0)(okHandler)) })
	b.Run("chi-throttle", func(b *testing.B) { runParallel(b, chiThrottle(limit)(okHandler)) })
}

// BenchmarkRefused compares the path of a request that is turned away: one
// request holds the only slot for the whole benchmark.
func BenchmarkRefused(b *testing.B) {
	b.Run("shed", func(b *testing.B) { runParallel(b, full(b, shed.Limit(1))) })
	b.Run("chi-throttle", func(b *testing.B) { runParallel(b, full(b, chiThrottle(1))) })
}

// full wraps a blocking handler in mw, parks one request inside it until
// the benchmark ends, and returns the wrapped handler.
func full(b *testing.B, mw func(http.Handler) http.Handler) http.Handler {
	entered, release := make(chan struct{}), make(chan struct{})
	first := true
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first {
			first = false
			close(entered)
			<-release
			return
		}
		b.Fatal("handler ran while the limit was full")
	}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}()
	<-entered
	b.Cleanup(func() { close(release); <-done })
	return h
}
