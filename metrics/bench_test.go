package metrics_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/shed"
)

// serverWriter is a ResponseWriter that does nothing but has every
// optional method of net/http's own writer, so a wrapper pays for all the
// interfaces it must keep, as it would in a server.
type serverWriter struct{ h http.Header }

func (w *serverWriter) Header() http.Header                          { return w.h }
func (w *serverWriter) WriteHeader(int)                              {}
func (w *serverWriter) Write(p []byte) (int, error)                  { return len(p), nil }
func (w *serverWriter) WriteString(s string) (int, error)            { return len(s), nil }
func (w *serverWriter) ReadFrom(r io.Reader) (int64, error)          { return io.Copy(io.Discard, r) }
func (w *serverWriter) Flush()                                       {}
func (w *serverWriter) FlushError() error                            { return nil }
func (w *serverWriter) CloseNotify() <-chan bool                     { return nil }
func (w *serverWriter) SetReadDeadline(time.Time) error              { return nil }
func (w *serverWriter) SetWriteDeadline(time.Time) error             { return nil }
func (w *serverWriter) EnableFullDuplex() error                      { return nil }
func (w *serverWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) { return nil, nil, nil }

var body = []byte(`{"hello":"world"}` + "\n")

// okHandler sets a header and writes a short body, like a small JSON API.
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(body)
})

func runParallel(b *testing.B, h http.Handler) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &serverWriter{h: make(http.Header)}
		r := httptest.NewRequest("GET", "/", nil)
		for pb.Next() {
			h.ServeHTTP(w, r)
		}
	})
}

// promhttpChain is client_golang's own instrumentation of the same
// figures: requests by code, a latency histogram and response sizes.
func promhttpChain(next http.Handler) http.Handler {
	reg := prometheus.NewRegistry()
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "http_requests_total", Help: "Requests by code.",
	}, []string{"code"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "http_request_duration_seconds", Help: "Latency.", Buckets: prometheus.DefBuckets,
	}, []string{"code"})
	size := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "http_response_size_bytes", Help: "Response sizes.", Buckets: prometheus.ExponentialBuckets(100, 10, 6),
	}, []string{"code"})
	reg.MustRegister(requests, duration, size)
	return promhttp.InstrumentHandlerCounter(requests,
		promhttp.InstrumentHandlerDuration(duration,
			promhttp.InstrumentHandlerResponseSize(size, next)))
}

// BenchmarkInstrument compares Instrument with a bare handler and with
// promhttp's InstrumentHandlerCounter+Duration+ResponseSize chain.
func BenchmarkInstrument(b *testing.B) {
	b.Run("bare", func(b *testing.B) { runParallel(b, okHandler) })
	b.Run("instrument", func(b *testing.B) {
		runParallel(b, metrics.Instrument("bench", prometheus.NewRegistry())(okHandler))
	})
	b.Run("promhttp", func(b *testing.B) { runParallel(b, promhttpChain(okHandler)) })
}

// BenchmarkGather is the cost of one scrape of a Shedder and an
// Instrumenter, paid by the scraper, never by a request.
func BenchmarkGather(b *testing.B) {
	reg := prometheus.NewRegistry()
	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
	reg.MustRegister(metrics.NewShedCollector("api", shed.New(shed.Options{Limit: 50})), in)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
