package frontdoortest_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := gate.WaitInside(ctx, 2); err != nil {
		fmt.Println(err)
		return
	}

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
