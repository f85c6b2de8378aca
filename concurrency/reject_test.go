package concurrency

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
)

// A Reject handler owns the header values it is given: changing them in
// place does not change what later refusals carry, its own or those of
// other Limiters.
func TestRejectCannotAlterLaterRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen []string
		mutating := New(Options{Limit: 1, MaxQueue: -1, Reject: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			seen = append(seen, h.Get("Retry-After"))
			h["Retry-After"][0] = "x"
			w.WriteHeader(http.StatusServiceUnavailable)
		})})
		plain := New(Options{Limit: 1, MaxQueue: -1})
		for _, l := range []*Limiter{mutating, plain} {
			g := newGate()
			h := l.Handler(g)
			_, hold := do(h, "/hold")
			synctest.Wait()
			for range 2 {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
				if l == plain {
					seen = append(seen, rec.Header().Get("Retry-After"))
				}
			}
			close(g.release)
			<-hold
		}
		want := []string{"1", "1", "1", "1"}
		for i := range want {
			if i >= len(seen) || seen[i] != want[i] {
				t.Fatalf("Retry-After of successive refusals = %q, want %q", seen, want)
			}
		}
	})
}
