package retry_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/frontdoor-go/frontdoor/priority"
	"github.com/frontdoor-go/frontdoor/retry"
)

// okBase answers every request 200 with no body, allocating only the
// response, so that what is measured beyond it is the Transport's cost.
type okBase struct{}

func (okBase) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
}

// BenchmarkRoundTrip compares a bare base with the Transport in front of
// it: a request without a level in its context (passed to the base as it
// is), and one with a level (sent as a copy that carries the header).
func BenchmarkRoundTrip(b *testing.B) {
	plain, _ := http.NewRequest("GET", "http://example.com/", nil)
	leveled := plain.WithContext(priority.WithLevel(context.Background(), priority.Sheddable))
	for _, bb := range []struct {
		name string
		rt   http.RoundTripper
		req  *http.Request
	}{
		{"bare", okBase{}, plain},
		{"retry", &retry.Transport{Base: okBase{}}, plain},
		{"retry-level", &retry.Transport{Base: okBase{}}, leveled},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := bb.rt.RoundTrip(bb.req); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
