package peers

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/frontdoor-go/frontdoor/ping"
)

// ping.Handler beside chi's Heartbeat, the closest peer: a bare handler,
// frontdoor and chi in one run, on the health path and on a path passed
// through.
func BenchmarkPing(b *testing.B) {
	bare := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	handlers := []struct {
		name string
		h    http.Handler
	}{
		{"bare", bare},
		{"frontdoor", ping.Handler("/ping")(bare)},
		{"chi.Heartbeat", middleware.Heartbeat("/ping")(bare)},
	}
	for _, path := range []string{"/ping", "/render"} {
		for _, hh := range handlers {
			b.Run(path[1:]+"/"+hh.name, func(b *testing.B) {
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					r := httptest.NewRequest("GET", path, nil)
					w := &pingWriter{h: make(http.Header)}
					for pb.Next() {
						clear(w.h)
						hh.h.ServeHTTP(w, r)
					}
				})
			})
		}
	}
}

// pingWriter is a ResponseWriter that keeps nothing, so the benchmark
// measures the middleware and not a recorder.
type pingWriter struct{ h http.Header }

func (w *pingWriter) Header() http.Header         { return w.h }
func (w *pingWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *pingWriter) WriteHeader(int)             {}
