package concurrency

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5/middleware"
)

// The uncontended path: the limit is never reached. Compare ns/op and
// allocs with the bare handler and chi's Throttle in the same run.
func BenchmarkUncontended(b *testing.B) {
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"bare", ok},
		{"chi.Throttle", middleware.Throttle(1 << 20)(ok)},
		{"concurrency", New(Options{Limit: 1 << 20}).Handler(ok)},
	} {
		b.Run(bc.name, func(b *testing.B) { serveParallel(b, bc.h) })
	}
}

// The contended path: one slot, 8 goroutines per P compete for it, the
// rest queue (a handler of ~2µs keeps the queue busy).
func BenchmarkContended(b *testing.B) {
	work := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		for t := time.Now(); time.Since(t) < 2*time.Microsecond; {
		}
	})
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"chi.ThrottleBacklog", middleware.ThrottleBacklog(1, 1<<20, time.Minute)(work)},
		{"concurrency", New(Options{Limit: 1, MaxQueue: 1 << 20, QueueTimeout: time.Minute}).Handler(work)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetParallelism(8)
			serveParallel(b, bc.h)
		})
	}
}

// A refusal: every slot and the queue are full; no allocation of ours.
func BenchmarkRefusal(b *testing.B) {
	l := New(Options{Limit: 1, MaxQueue: -1})
	release := make(chan struct{})
	h := l.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	go h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	for l.Stats().Running == 0 {
		time.Sleep(time.Millisecond)
	}
	defer close(release)
	b.ReportAllocs()
	w := &discardWriter{h: http.Header{}}
	r := httptest.NewRequest("GET", "/", nil)
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}

// serveParallel serves h from every P with a recorder per goroutine.
func serveParallel(b *testing.B, h http.Handler) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := httptest.NewRecorder()
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
