package shed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/shed"
)

func ExampleLimit() {
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, `{"hello":"world"}`)
	})
	h := shed.Limit(50)(mux) // at most 50 requests in flight; the rest get 503

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/hello", nil))
	fmt.Print(rec.Code, " ", rec.Body.String())
	// Output: 200 {"hello":"world"}
}

func ExampleNew() {
	var inFlight inflight.Counter // shared with other routes or a health check
	s := shed.New(shed.Options{
		Limit:           1,
		Counter:         &inFlight,
		RetryAfter:      2500 * time.Millisecond, // sent as "3"
		CloseConnection: true,
		Exempt:          func(r *http.Request) bool { return r.URL.Path == "/ping" },
	})
	h := s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// While this request runs, the next one is refused.
		rec := httptest.NewRecorder()
		s.Handler(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest("GET", "/render", nil))
		fmt.Println(rec.Code, rec.Header().Get("Retry-After"), rec.Header().Get("Connection"))
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/render", nil))
	fmt.Printf("%+v\n", s.Stats())
	// Output:
	// 503 3 close
	// {Admitted:1 Refused:1 Exempt:0 InFlight:0 Peak:1 Limit:1 Adaptive:<nil> Levels:<nil>}
}

// Reject replaces the default 503, here with a JSON body. Retry-After is
// already set when it is called.
func ExampleOptions_reject() {
	h := shed.New(shed.Options{
		Limit:      1,
		RetryAfter: 5 * time.Second,
		Reject: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":"overloaded"}`))
		}),
	}).Handler
	var inner http.Handler
	outer := h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, r)
		fmt.Println(rec.Code, rec.Header().Get("Retry-After"), rec.Body.String())
	}))
	inner = h(http.NotFoundHandler())
	outer.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	// Output: 503 5 {"error":"overloaded"}
}

// A job loop takes a place per job with TryAcquire and gives it back with
// Release when the job is done; a job that finds the limit full waits for
// a later round. HTTP requests through s.Handler would share the limit.
func ExampleShedder_TryAcquire() {
	s := shed.New(shed.Options{Limit: 2})
	work := make(chan struct{}) // the jobs run until it is closed
	var wg sync.WaitGroup
	for _, job := range []string{"a", "b", "c"} {
		if !s.TryAcquire() {
			fmt.Println(job, "refused: retry later")
			continue
		}
		wg.Go(func() {
			defer s.Release()
			<-work
		})
	}
	close(work)
	wg.Wait()
	fmt.Printf("%+v\n", s.Stats())
	// Output:
	// c refused: retry later
	// {Admitted:2 Refused:1 Exempt:0 InFlight:0 Peak:2 Limit:2 Adaptive:<nil> Levels:<nil>}
}

// errOverloaded stands for the refusal of an RPC framework, such as gRPC's
// status.Error(codes.Unavailable, ...).
var errOverloaded = errors.New("overloaded, retry later")

// An interceptor in the shape of a gRPC unary server interceptor admits
// each call with TryAcquire and releases it when the handler returns.
func ExampleShedder_Release() {
	s := shed.New(shed.Options{Limit: 1})
	type handler func(ctx context.Context, req any) (any, error)
	intercept := func(ctx context.Context, req any, next handler) (any, error) {
		if !s.TryAcquire() {
			return nil, errOverloaded
		}
		defer s.Release()
		return next(ctx, req)
	}

	echo := func(ctx context.Context, req any) (any, error) { return req, nil }
	nested := func(ctx context.Context, req any) (any, error) {
		// A second call while this one holds the only place is refused.
		return intercept(ctx, req, echo)
	}
	fmt.Println(intercept(context.Background(), "hi", echo))
	fmt.Println(intercept(context.Background(), "hi", nested))
	fmt.Printf("%+v\n", s.Stats())
	// Output:
	// hi <nil>
	// <nil> overloaded, retry later
	// {Admitted:2 Refused:1 Exempt:0 InFlight:0 Peak:1 Limit:1 Adaptive:<nil> Levels:<nil>}
}
