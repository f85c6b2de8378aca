package inflight_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/frontdoor-go/frontdoor/inflight"
)

func ExampleCounter_TryInc() {
	var c inflight.Counter
	for i := range 3 {
		fmt.Println(i, c.TryInc(2))
	}
	c.Dec()
	fmt.Println("after Dec:", c.TryInc(2), "peak:", c.Peak())
	// Output:
	// 0 true
	// 1 true
	// 2 false
	// after Dec: true peak: 2
}

func ExampleTrack() {
	var c inflight.Counter
	h := inflight.Track(&c)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("in flight:", c.Load())
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	fmt.Println("after:", c.Load())
	// Output:
	// in flight: 1
	// after: 0
}
