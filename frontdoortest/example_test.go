package frontdoortest_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/frontdoor-go/frontdoor/frontdoortest"
	"github.com/frontdoor-go/frontdoor/shed"
)

// Fill a limit of two, then check the answer to the third request.
func ExampleGate() {
	gate := frontdoortest.NewGate()
	h := shed.Limit(2)(gate)
	held := []<-chan *httptest.ResponseRecorder{
		frontdoortest.Start(h, httptest.NewRequest("GET", "/", nil)),
		frontdoortest.Start(h, httptest.NewRequest("GET", "/", nil)),
	}
	gate.WaitInside(2)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	fmt.Println("third:", rec.Code, "Retry-After", rec.Header().Get("Retry-After"))

	gate.Open()
	for _, c := range held {
		fmt.Println("held:", (<-c).Code)
	}
	// Output:
	// third: 503 Retry-After 1
	// held: 200
	// held: 200
}
