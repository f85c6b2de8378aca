package metrics

import (
	"math"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/internal/histogram"
)

// InstrumenterOptions configures an Instrumenter. The zero value is ready
// to use.
type InstrumenterOptions struct {
	// Buckets are the upper bounds, in seconds, of the latency histogram's
	// buckets, strictly ascending and > 0 (NaN is neither). A last +Inf is
	// allowed and dropped, as client_golang does: every histogram has a
	// +Inf bucket. Nil means prometheus.DefBuckets (5 ms to 10 s).
	Buckets []float64
}

// Instrument returns a middleware that counts requests by status class,
// their latency and the bytes written, as NewInstrumenter does, and
// registers its collector with reg. It panics if name is empty or the
// registration fails (a second Instrumenter of the same name in reg).
func Instrument(name string, reg prometheus.Registerer) func(http.Handler) http.Handler {
	in := NewInstrumenter(name, InstrumenterOptions{})
	reg.MustRegister(in)
	return in.Handler
}

// NewInstrumenter returns an Instrumenter labelled name=name. It panics if
// name is empty or the buckets are not as InstrumenterOptions.Buckets
// says: positive, strictly ascending, no NaN, +Inf only last.
func NewInstrumenter(name string, opts InstrumenterOptions) *Instrumenter {
	if opts.Buckets == nil {
		opts.Buckets = prometheus.DefBuckets
	}
	secs := checkBuckets(opts.Buckets)
	in := &Instrumenter{}
	for i := range in.classes {
		in.classes[i].duration = histogram.New(secs, nanosecond)
	}
	in.initDescs(name)
	return in
}

// checkBuckets returns a copy of the bounds b without a last +Inf, and
// panics unless the rest are finite, positive and strictly ascending.
// The comparisons are written so that NaN fails them.
func checkBuckets(b []float64) []float64 {
	if n := len(b); n > 0 && math.IsInf(b[n-1], 1) {
		b = b[:n-1]
	}
	for i, v := range b {
		if !(v > 0) || math.IsInf(v, 1) || (i > 0 && !(v > b[i-1])) {
			panic("metrics: Buckets must be > 0, strictly ascending and not NaN, with +Inf only last")
		}
	}
	return slices.Clone(b)
}

// An Instrumenter is a middleware that counts the requests passing
// through it by status class, with their latency and response bytes, and
// a prometheus.Collector that reports those counts. Register it with a
// registry, or read Stats. It is safe for concurrent use by multiple
// goroutines.
type Instrumenter struct {
	classes [numClasses]classCounters
	panics  atomic.Uint64
	aborted atomic.Uint64
	descs   instrumenterDescs
}

// classCounters are the counters of one status class; the padding keeps
// the classes, written by different requests at once, off each other's
// cache lines.
type classCounters struct {
	duration *histogram.Histogram
	bytes    atomic.Uint64
	_        [64]byte
}

// Handler returns a handler that calls next with a ResponseWriter wrapped
// by httpsnoop, and when next returns, counts the request under the class
// of the status it sent, its latency (from Handler being called to next
// returning) and the bytes next wrote through Write, WriteString and
// ReadFrom (the body, without headers).
//
// The status is the first final status next sent: the code of its first
// WriteHeader call outside 102–199, or 200 if it wrote a body or returned
// first. Informational 1xx responses (103 Early Hints) are not counted;
// 101 Switching Protocols is.
//
// A handler that panics with http.ErrAbortHandler (as bodybuffer does for
// a client that went away) is counted in frontdoor_http_aborted_total, any
// other panic in frontdoor_http_panics_total; neither is in a status
// class, and the panic goes on to net/http with the same value (net/http
// drops an aborted response silently and logs any other panic with its
// stack, the frames of the original panic included).
//
// Flush and Hijack pass through unobserved, which keeps the wrapper to
// four hooks: a handler that flushes before any WriteHeader or Write and
// only then calls WriteHeader(code) (a superfluous call net/http ignores
// and logs; the client got 200) is counted under code, and a hijacked
// connection under the status set before the hijack, 200 if none.
//
// The wrapped writer has exactly the optional interfaces of w
// (http.Flusher, http.Hijacker, io.ReaderFrom, io.StringWriter, …) and an
// Unwrap method, so http.NewResponseController works through it. Handler
// sends nothing itself and never writes to w after next returned.
func (in *Instrumenter) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{w: w}
		returned := false
		defer func() {
			if !returned {
				in.unwound(recover())
			}
		}()
		next.ServeHTTP(rec.wrap(), r)
		returned = true
		c := &in.classes[classOf(rec.status)]
		c.duration.Observe(int64(time.Since(start)))
		c.bytes.Add(uint64(rec.bytes))
	})
}

// unwound counts a handler that did not return, and re-raises its panic
// value v. v is nil when the handler called runtime.Goexit (t.FailNow in a
// test): that is counted as a panic, and the goroutine goes on exiting.
func (in *Instrumenter) unwound(v any) {
	if v == http.ErrAbortHandler {
		in.aborted.Add(1)
	} else {
		in.panics.Add(1)
	}
	if v != nil {
		panic(v)
	}
}
