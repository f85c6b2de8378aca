package metrics_test

import (
	"errors"
	"expvar"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/shed"
)

// A Shedder's counters and the requests' status, latency and bytes, served
// at /metrics next to the application.
func Example() {
	s := shed.New(shed.Options{Limit: 50})
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewShedCollector("api", s))

	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello\n")
	})
	mux := http.NewServeMux()
	mux.Handle("/", metrics.Instrument("api", reg)(s.Handler(app)))
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	for range 3 {
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	printLines(rec.Body.String(), "frontdoor_shed_admitted", `frontdoor_http_requests_total{code="2xx"`, `frontdoor_http_response_bytes_total{code="2xx"`)
	// Output:
	// frontdoor_http_requests_total{code="2xx",name="api"} 3
	// frontdoor_http_response_bytes_total{code="2xx",name="api"} 18
	// frontdoor_shed_admitted_total{name="api"} 3
}

// Two Shedders, one per route, in one registry: the name label tells them
// apart.
func ExampleNewShedCollector() {
	pages := shed.New(shed.Options{Limit: 10})
	api := shed.New(shed.Options{Limit: 100})
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		metrics.NewShedCollector("pages", pages),
		metrics.NewShedCollector("api", api),
	)

	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	printLines(rec.Body.String(), "frontdoor_shed_limit")
	// Output:
	// frontdoor_shed_limit{name="api"} 100
	// frontdoor_shed_limit{name="pages"} 10
}

// Without Prometheus: the same counters as JSON at /debug/vars, which the
// expvar package serves on http.DefaultServeMux (or mount expvar.Handler).
func ExamplePublish() {
	s := shed.New(shed.Options{Limit: 50})
	metrics.Publish("frontdoor.shed.example", func() any { return s.Stats() })
	fmt.Println(expvar.Get("frontdoor.shed.example"))

	// expvar names are global to the process; a second Publish of one
	// name is an error (expvar.Publish itself would panic).
	err := metrics.Publish("frontdoor.shed.example", func() any { return s.Stats() })
	var dup *metrics.DuplicateError
	fmt.Println(errors.As(err, &dup))
	// Output:
	// {"Admitted":0,"Refused":0,"Exempt":0,"InFlight":0,"Peak":0,"Limit":50}
	// true
}

// printLines prints the sample lines of a text exposition that start with
// one of the prefixes.
func printLines(text string, prefixes ...string) {
	for line := range strings.Lines(text) {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				fmt.Print(line)
			}
		}
	}
}
