package shed_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/go-chi/chi/v5"

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
	// {Admitted:1 Shed:1 Exempt:0 InFlight:0 Peak:1 Limit:1 Adaptive:<nil>}
}

// Shedding in chi: r.Use applies the limit to every route of the router.
func ExampleShedder_Handler_chi() {
	s := shed.New(shed.Options{Limit: 50})
	r := chi.NewRouter()
	r.Use(s.Handler)
	r.Get("/hello", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello\n"))
	})

	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest("GET", "/hello", nil))
	fmt.Print(rec.Body.String(), s.Stats().Admitted)
	// Output:
	// hello
	// 1
}

// Reject replaces the default 503, here with a JSON body.
func ExampleOptions_reject() {
	h := shed.New(shed.Options{
		Limit: 1,
		Reject: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":"overloaded"}`))
		}),
	}).Handler
	var inner http.Handler
	outer := h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, r)
		fmt.Println(rec.Code, rec.Body.String())
	}))
	inner = h(http.NotFoundHandler())
	outer.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	// Output: 503 {"error":"overloaded"}
}
