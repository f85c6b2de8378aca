package shed_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/frontdoor-go/frontdoor/priority"
	"github.com/frontdoor-go/frontdoor/shed"
)

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

// BenchmarkAdmitted compares the path of a request that is let through
// with a bare handler.
func BenchmarkAdmitted(b *testing.B) {
	const limit = 1 << 12 // never reached
	b.Run("bare", func(b *testing.B) { runParallel(b, okHandler) })
	b.Run("shed", func(b *testing.B) { runParallel(b, shed.Limit(limit)(okHandler)) })
	b.Run("shed-adaptive", func(b *testing.B) { runParallel(b, shed.Limit(0)(okHandler)) })
	b.Run("shed-priority", func(b *testing.B) {
		runParallel(b, shed.New(shed.Options{Limit: limit, Priority: priority.Context}).Handler(okHandler))
	})
	b.Run("shed-priority-tenant", func(b *testing.B) {
		s := shed.New(shed.Options{Limit: limit, Priority: priority.Context,
			Tenant: func(r *http.Request) string { return r.Host }})
		runParallel(b, s.Handler(okHandler))
	})
}

// BenchmarkRefused measures the path of a request that is turned away: a
// TryAcquire holds the only place for the whole benchmark.
func BenchmarkRefused(b *testing.B) {
	for _, tt := range []struct {
		name string
		opts shed.Options
	}{
		{"shed", shed.Options{Limit: 1}},
		{"shed-priority", shed.Options{Limit: 1, Priority: priority.Context}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			s := shed.New(tt.opts)
			s.TryAcquire()
			defer s.Release()
			runParallel(b, s.Handler(okHandler))
		})
	}
}

// BenchmarkTryAcquire measures the admission without HTTP: a place taken
// and given back.
func BenchmarkTryAcquire(b *testing.B) {
	s := shed.New(shed.Options{Limit: 1 << 12})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if s.TryAcquire() {
				s.Release()
			}
		}
	})
}
