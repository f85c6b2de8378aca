package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/shed"
)

// The whole chain, one collector per middleware: Instrument outermost, so
// it sees every answer, the 503s and 413s of the middlewares included,
// and counts a request bodybuffer drops for a client gone as aborted.
func ExampleNewConcurrencyCollector() {
	s := shed.New(shed.Options{Limit: 100})
	b := bodybuffer.New(bodybuffer.Options{MaxBytes: 1 << 20})
	l := concurrency.New(concurrency.Options{Limit: 2})
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		metrics.NewShedCollector("render", s),
		metrics.NewBodyBufferCollector("render", b),
		metrics.NewConcurrencyCollector("render", l),
	)
	render := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) })
	h := metrics.Instrument("render", reg)(s.Handler(b.Handler(l.Handler(render))))

	for range 3 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(`{"props":{}}`)))
	}
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	printLines(rec.Body.String(),
		"frontdoor_shed_admitted_total", "frontdoor_bodybuffer_buffered_total",
		"frontdoor_bodybuffer_read_bytes_total", "frontdoor_concurrency_admitted_total",
		`frontdoor_http_requests_total{code="2xx"`)
	// Output:
	// frontdoor_bodybuffer_buffered_total{name="render"} 3
	// frontdoor_bodybuffer_read_bytes_total{name="render"} 36
	// frontdoor_concurrency_admitted_total{name="render"} 3
	// frontdoor_http_requests_total{code="2xx",name="render"} 3
	// frontdoor_shed_admitted_total{name="render"} 3
}

// A bodybuffer's counters: bodies buffered, bytes read, refusals by
// reason (413 here).
func ExampleNewBodyBufferCollector() {
	b := bodybuffer.New(bodybuffer.Options{MaxBytes: 10})
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewBodyBufferCollector("upload", b))
	h := b.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for _, body := range []string{"small", "far too large"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(body)))
	}
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	printLines(rec.Body.String(), "frontdoor_bodybuffer_buffered_total", "frontdoor_bodybuffer_refused_total")
	// Output:
	// frontdoor_bodybuffer_buffered_total{name="upload"} 1
	// frontdoor_bodybuffer_refused_total{name="upload",reason="canceled"} 0
	// frontdoor_bodybuffer_refused_total{name="upload",reason="spool_error"} 0
	// frontdoor_bodybuffer_refused_total{name="upload",reason="timed_out"} 0
	// frontdoor_bodybuffer_refused_total{name="upload",reason="too_large"} 1
	// frontdoor_bodybuffer_refused_total{name="upload",reason="truncated"} 0
}
