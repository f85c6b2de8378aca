package ping_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/frontdoor-go/frontdoor/ping"
)

// nopWriter is a ResponseWriter that keeps nothing, so the benchmarks
// measure the middleware and not a recorder.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(int)             {}

var bare = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})

// BenchmarkPing answers the health path and passes other requests
// through, beside a bare handler.
func BenchmarkPing(b *testing.B) {
	handlers := []struct {
		name string
		h    http.Handler
	}{
		{"bare", bare},
		{"ping", ping.Handler("/ping")(bare)},
	}
	for _, path := range []string{"/ping", "/render"} {
		for _, hh := range handlers {
			b.Run(path[1:]+"/"+hh.name, func(b *testing.B) {
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					r := httptest.NewRequest("GET", path, nil)
					w := &nopWriter{h: make(http.Header)}
					for pb.Next() {
						clear(w.h)
						hh.h.ServeHTTP(w, r)
					}
				})
			})
		}
	}
}

func BenchmarkAgentReply(b *testing.B) {
	a := ping.NewAgent(ping.AgentOptions{Load: func() (int, int) { return 2, 8 }})
	b.ReportAllocs()
	for b.Loop() {
		_ = a.Reply()
	}
}
