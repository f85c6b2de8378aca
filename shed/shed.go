package shed

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/internal/adaptive"
	"github.com/frontdoor-go/frontdoor/internal/prioritize"
	"github.com/frontdoor-go/frontdoor/internal/refusal"
	"github.com/frontdoor-go/frontdoor/priority"
)

// DefaultRetryAfter is the Retry-After of a refusal when
// Options.RetryAfter is zero.
const DefaultRetryAfter = time.Second

// Options configures a Shedder. Every zero field means the default its
// comment names; the zero Options is a Shedder whose limit finds itself.
type Options struct {
	// Limit is the most requests in flight at once. SetLimit changes it
	// while the server runs. New panics if it is negative.
	//
	// 0 means the limit finds itself (experimental: see the README's
	// Limitations). It starts open (1024) and is set only on evidence of
	// overload: a queue growing behind the handler (latency rising window
	// after window while more requests are in flight), most requests
	// completed for callers already gone, or goroutines waiting for a P
	// for several windows in a row while at least GOMAXPROCS − 1 requests
	// run (a concurrency.Limiter behind the Shedder acts first). It is then
	// set a little above the product of goodput (requests completed for a
	// client still there) and the duration before the queue grew, follows
	// that product while it binds, and opens again once it has not bound
	// for a while. It learns from the requests served by Handler;
	// TryAcquire callers count against it but are not timed. The count
	// never passes the limit of the moment. Stats reports the limit and
	// the signals behind it.
	Limit int

	// Counter holds the in-flight count. Pass one to share the count
	// between several Shedders (routes) or with a health check or metrics
	// collector. Nil means a Counter of the Shedder's own.
	Counter *inflight.Counter

	// RetryAfter is sent in the Retry-After header of a refusal, rounded
	// up to whole seconds and capped at one day (86400 seconds). Zero
	// means DefaultRetryAfter; New panics if it is negative.
	RetryAfter time.Duration

	// CloseConnection adds "Connection: close" to a refusal, so the
	// client's next attempt opens a new connection, which a load balancer
	// may send to another instance. False means the connection stays open.
	CloseConnection bool

	// Reject, if not nil, writes the answer to a refused request instead
	// of the default. When it is called, the refusal's headers
	// (Retry-After, and Connection: close when the connection will be
	// closed) are already set on w with values of this request's own;
	// Reject writes the status and the body. It runs outside the limit, so
	// keep it cheap. Nil means the default 503 described at Handler.
	Reject http.Handler

	// Exempt, if not nil, is called by Handler for every request before
	// admission; requests for which it returns true are never shed and
	// are not counted in Counter. It runs on every request, so keep it
	// cheap. TryAcquire has no request and never calls it. Nil means no
	// request is exempt.
	Exempt func(*http.Request) bool

	// Priority, if not nil, gives each request its level (see package
	// priority), and the Shedder refuses the lowest levels first: a
	// request is admitted only while, counted in, it leaves free the few
	// places that the levels above it need, by their recent demand, to
	// find one (see Handler). Nil means every request is equal, as
	// without this option.
	Priority priority.Classifier

	// Tenant, if not nil, names the tenant (a customer, an API key) of a
	// request: the places of each level are shared between its tenants by
	// what they ask for, refused requests included. A tenant that asks for
	// more than its fair share is refused while the count is within the
	// few places of its level's limit that the tenants under their share
	// need to find one free (idle when they do not come), so one noisy
	// tenant cannot take its level's whole share; a tenant that asks for
	// less is refused only when every place is taken. The shares follow
	// the last thousand requests or so.
	// Tenants are told apart by a hash, in a bounded number of groups.
	// Without Priority, all requests are of priority.Default. It must be
	// cheap and must not allocate. Nil means no tenants.
	Tenant func(*http.Request) string
}

// refusalBody is the body of the default refusal.
const refusalBody = "503 service overloaded, retry later\n"

// Limit returns a middleware that lets at most n requests through at once
// and refuses the rest as Handler does; n = 0 lets the limit find itself
// (see Options.Limit). It panics if n < 0.
func Limit(n int) func(http.Handler) http.Handler {
	return New(Options{Limit: n}).Handler
}

// New returns a Shedder configured by opts. It panics, with a message that
// starts with "shed: ", if opts.Limit < 0 or opts.RetryAfter < 0.
func New(opts Options) *Shedder {
	switch {
	case opts.Limit < 0:
		panic("shed: Limit must be >= 0")
	case opts.RetryAfter < 0:
		panic("shed: RetryAfter must be >= 0")
	}
	if opts.RetryAfter == 0 {
		opts.RetryAfter = DefaultRetryAfter
	}
	s := &Shedder{
		counter: opts.Counter,
		reject:  opts.Reject,
		exempt:  opts.Exempt,
		refusal: refusal.New(opts.RetryAfter, refusalBody, opts.CloseConnection),
	}
	if s.counter == nil {
		s.counter = &s.own
	}
	if opts.Priority != nil || opts.Tenant != nil {
		s.levels = &levels{
			gate:     prioritize.Gate{Fair: opts.Tenant != nil},
			classify: opts.Priority,
			tenant:   opts.Tenant,
		}
	}
	s.limit.Store(int64(opts.Limit))
	if opts.Limit == 0 {
		s.ctl = newController(s.counter)
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
	refusal *refusal.Refusal
	levels  *levels // nil without Options.Priority and Options.Tenant
	limit   atomic.Int64
	ctl     *adaptive.Controller // nil: the limit is fixed

	// The counters below are written on every request; the padding keeps
	// them off the cache line of the read-mostly fields above.
	_        [64]byte
	own      inflight.Counter
	admitted atomic.Uint64
	_        [64]byte
	refused  atomic.Uint64
	exempted atomic.Uint64
}

// SetLimit changes the limit for the requests that arrive from now on.
// Requests already in flight are not interrupted: after lowering the
// limit, the count drains down to it. A limit that finds itself goes on
// from n. It panics if n <= 0.
func (s *Shedder) SetLimit(n int) {
	if n <= 0 {
		panic("shed: SetLimit needs a limit > 0")
	}
	if s.ctl != nil {
		s.ctl.Set(int64(n))
		return
	}
	s.limit.Store(int64(n))
}

// Limit returns the current limit.
func (s *Shedder) Limit() int { return int(s.lim()) }

// lim returns the limit of the moment: one atomic load either way.
func (s *Shedder) lim() int64 {
	if s.ctl != nil {
		return s.ctl.Limit()
	}
	return s.limit.Load()
}

// Counter returns the in-flight counter the Shedder admits with.
func (s *Shedder) Counter() *inflight.Counter { return s.counter }
