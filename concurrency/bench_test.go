package concurrency

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
)

// The library's benchmarks compare the Limiter with a bare handler only;
// comparisons with peers are in examples/peers.

// The uncontended path: the limit is never reached.
func BenchmarkUncontended(b *testing.B) {
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	b.Run("bare", func(b *testing.B) { serveParallel(b, ok) })
	b.Run("concurrency", func(b *testing.B) { serveParallel(b, New(Options{Limit: 1 << 20}).Handler(ok)) })
	// The limit that finds itself starts below GOMAXPROCS and grows within
	// the first windows, well before the timing settles.
	b.Run("concurrency-adaptive", func(b *testing.B) { serveParallel(b, New(Options{}).Handler(ok)) })
	b.Run("concurrency-priority", func(b *testing.B) {
		serveParallel(b, New(Options{Limit: 1 << 20, Priority: priority.Context}).Handler(ok))
	})
}

// spin is a handler of about 2µs of CPU, enough to keep a queue busy.
var spin = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
	for t := time.Now(); time.Since(t) < 2*time.Microsecond; {
	}
})

// The contended path: one slot, 8 goroutines per P compete for it, the
// rest queue. The bare handler runs them all at once.
func BenchmarkContended(b *testing.B) {
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"bare", spin},
		{"concurrency", New(Options{Limit: 1, MaxQueue: 1 << 20, QueueTimeout: time.Minute}).Handler(spin)},
		{"concurrency-priority", New(Options{Limit: 1, MaxQueue: 1 << 20, QueueTimeout: time.Minute,
			Priority: priority.Context}).Handler(spin)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetParallelism(8)
			serveParallel(b, bc.h)
		})
	}
}

// A refusal: the only slot is held and there is no queue. The default
// refusal allocates nothing of ours.
func BenchmarkRefusal(b *testing.B) {
	l := New(Options{Limit: 1, MaxQueue: -1})
	release, ok := l.TryAcquire()
	if !ok {
		b.Fatal("TryAcquire() on an idle Limiter failed")
	}
	defer release()
	serveParallel(b, l.Handler(spin))
}

// Acquire and release outside HTTP, uncontended: release is a closure of
// its own, so that calling it twice is safe.
func BenchmarkAcquire(b *testing.B) {
	l := New(Options{Limit: 1 << 20})
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			release, err := l.Acquire(ctx)
			if err != nil {
				b.Error(err)
				return
			}
			release()
		}
	})
}

// serveParallel serves h from every P, each goroutine with a writer that
// discards what it is given (a recorder would allocate on every write).
func serveParallel(b *testing.B, h http.Handler) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &discardWriter{h: http.Header{}}
		r := httptest.NewRequest("GET", "/", nil)
		for pb.Next() {
			h.ServeHTTP(w, r)
		}
	})
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
