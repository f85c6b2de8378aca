// Package shed provides synchronous load shedding at the front door: a
// request is counted and checked against a limit in one atomic step, and
// refused with 503 at once, before any other work is done for it.
//
// Counting and checking in one step is what keeps the limit true under a
// burst: a shedder that checks first and counts later lets every request
// of a burst see the same low count and pass.
//
//	mux := http.NewServeMux()
//	mux.Handle("/hello", hello)
//	http.ListenAndServe(":8000", shed.Limit(50)(mux))
//
// With no number (shed.Limit(0), or Options with Limit left out) the
// limit finds itself from what the server completes: see Options.Limit.
//
// Shed is not a rate limiter and not per client: it bounds how many
// requests this process serves at the same time. A request holds its
// place for as long as it runs, body upload included: where slow uploads
// pass through (shed in front of bodybuffer), give upload routes a Shedder
// of their own, so slow bodies cannot take the places of short requests.
package shed

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/internal/adaptive"
)

// DefaultRetryAfter is the Retry-After sent with a refusal when
// Options.RetryAfter is zero.
const DefaultRetryAfter = time.Second

// Options configures a Shedder. The zero value is valid: a Shedder whose
// limit finds itself.
type Options struct {
	// Limit is the most requests in flight at once; SetLimit changes it
	// while the server runs. Negative panics.
	//
	// 0 means the limit finds itself from what the server completes: it
	// starts low, doubles while goodput (requests completed for a client
	// still there) rises with it, and then stays a little above the
	// product of the highest recent goodput and the duration of a request
	// that waits behind no other; it follows that product when capacity
	// or request costs change, and is cut near GOMAXPROCS when goroutines
	// wait for a P. It never lets the count pass the limit of the moment.
	// Stats reports the limit and the signals behind it.
	Limit int64

	// Counter holds the in-flight count. Pass one to share the count
	// between several Shedders (routes) or with a health check or metrics
	// collector. Nil means a Counter of the Shedder's own.
	Counter *inflight.Counter

	// RetryAfter is sent in the Retry-After header of a refusal, rounded
	// up to whole seconds and capped at one day (86400), so a huge value
	// cannot overflow or keep clients away for years. Zero means
	// DefaultRetryAfter; it must not be negative.
	RetryAfter time.Duration

	// CloseConnection adds "Connection: close" to the default refusal, so
	// the client's next attempt opens a new connection, which a load
	// balancer may send to another instance. A Reject handler sets its own
	// headers.
	CloseConnection bool

	// Reject, if not nil, answers refused requests instead of the default
	// 503, starting from the response header as the Shedder received it:
	// it sets Retry-After itself. It runs outside the limit and should be
	// as cheap as possible.
	Reject http.Handler

	// Exempt, if not nil, is called for every request before admission;
	// requests for which it returns true are never shed and are not
	// counted in Counter. It runs on every request, so keep it cheap.
	Exempt func(*http.Request) bool
}

// Limit returns a middleware that lets at most n requests through at once
// and refuses the rest as New does; n = 0 lets the limit find itself (see
// Options.Limit). It panics if n < 0.
func Limit(n int) func(http.Handler) http.Handler {
	return New(Options{Limit: int64(n)}).Handler
}

// New returns a Shedder configured by opts. It panics if opts.Limit < 0
// or opts.RetryAfter < 0.
func New(opts Options) *Shedder {
	if opts.Limit < 0 {
		panic("shed: Limit must be >= 0")
	}
	if opts.RetryAfter < 0 {
		panic("shed: RetryAfter must not be negative")
	}
	if opts.RetryAfter == 0 {
		opts.RetryAfter = DefaultRetryAfter
	}
	s := &Shedder{
		counter: opts.Counter,
		reject:  opts.Reject,
		exempt:  opts.Exempt,
	}
	if s.counter == nil {
		s.counter = &s.own
	}
	if s.reject == nil {
		s.reject = newRefusal(opts.RetryAfter, opts.CloseConnection)
	}
	s.limit.Store(opts.Limit)
	if opts.Limit == 0 {
		s.ctl = newController()
	}
	return s
}

// A Shedder admits requests while fewer than its limit are in flight and
// refuses the others. Create it with New; the zero value is not usable. A
// Shedder is safe for concurrent use by multiple goroutines.
type Shedder struct {
	counter *inflight.Counter
	reject  http.Handler
	exempt  func(*http.Request) bool
	limit   atomic.Int64
	ctl     *adaptive.Controller // nil: the limit is fixed

	// The counters below are written on every request; the padding keeps
	// them off the cache line of the read-mostly fields above.
	_        [64]byte
	own      inflight.Counter
	admitted atomic.Uint64
	_        [64]byte
	shed     atomic.Uint64
	exempted atomic.Uint64
}

// Handler returns a handler that admits a request to next only if, counted
// in, it keeps the in-flight count at or below the limit; the count is
// decremented exactly once when next returns or panics.
//
// A refused request never reaches next. It gets 503 Service Unavailable
// with Retry-After (whole seconds), Content-Type text/plain, a short fixed
// body and, if configured, Connection: close — or whatever Options.Reject
// writes, on a header the Shedder has not touched. The default refusal
// allocates nothing and logs nothing: its header values are preformatted
// and shared by every refusal, so middleware wrapping the Shedder may
// replace them (Header().Set) but must not write into them in place.
//
// Admitted requests reach next with the original ResponseWriter and
// Request, so every optional interface of the writer survives.
func (s *Shedder) Handler(next http.Handler) http.Handler {
	if s.ctl != nil {
		return s.adaptiveHandler(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.exempt != nil && s.exempt(r) {
			s.exempted.Add(1)
			next.ServeHTTP(w, r)
			return
		}
		if !s.counter.TryInc(s.limit.Load()) {
			s.shed.Add(1)
			s.reject.ServeHTTP(w, r)
			return
		}
		s.admitted.Add(1)
		defer s.counter.Dec()
		next.ServeHTTP(w, r)
	})
}

// SetLimit changes the limit for the requests that arrive from now on.
// Requests already in flight are not interrupted: after lowering the
// limit, the count drains down to it. A limit that finds itself goes on
// from n. It panics if n <= 0.
func (s *Shedder) SetLimit(n int64) {
	if n <= 0 {
		panic("shed: limit must be > 0")
	}
	if s.ctl != nil {
		s.ctl.Set(n)
		return
	}
	s.limit.Store(n)
}

// Limit returns the current limit.
func (s *Shedder) Limit() int64 {
	if s.ctl != nil {
		return s.ctl.Limit()
	}
	return s.limit.Load()
}

// Counter returns the in-flight counter the Shedder admits with.
func (s *Shedder) Counter() *inflight.Counter { return s.counter }

// Stats is a snapshot of a Shedder's counters.
type Stats struct {
	Admitted uint64 // requests let through to next
	Shed     uint64 // requests refused
	Exempt   uint64 // requests passed by Options.Exempt, uncounted
	InFlight int64  // requests in flight now (the Counter's value)
	Peak     int64  // the Counter's high-water mark
	Limit    int64  // the current limit

	// Adaptive holds the signals behind a limit that finds itself; nil
	// for a fixed limit.
	Adaptive *Signals `json:",omitempty"`
}

// Stats returns the Shedder's counters. Each field is read atomically; the
// fields are not one consistent snapshot under load.
func (s *Shedder) Stats() Stats {
	return Stats{
		Admitted: s.admitted.Load(),
		Shed:     s.shed.Load(),
		Exempt:   s.exempted.Load(),
		InFlight: s.counter.Load(),
		Peak:     s.counter.Peak(),
		Limit:    s.Limit(),
		Adaptive: signals(s.ctl),
	}
}
