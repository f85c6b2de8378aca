package concurrency

import (
	"math"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/internal/adaptive"
	"github.com/frontdoor-go/frontdoor/internal/gone"
	"github.com/frontdoor-go/frontdoor/internal/histogram"
	"github.com/frontdoor-go/frontdoor/internal/prioritize"
	"github.com/frontdoor-go/frontdoor/priority"
)

// Defaults for the zero fields of Options.
const (
	// DefaultQueueFactor sets the default MaxQueue to DefaultQueueFactor × Limit
	// (the limit of the moment, for a limit that finds itself).
	DefaultQueueFactor = 8
	// DefaultQueueTimeout is the longest a request waits in the queue.
	DefaultQueueTimeout = 100 * time.Millisecond
	// DefaultQueueRounds sets the default wait budget of a limit that
	// finds itself: DefaultQueueRounds runs of the handler, each planned
	// with the spread of its durations but at most twice their average
	// (ServiceTime), at most DefaultQueueTimeout.
	DefaultQueueRounds = 5
	// DefaultCoDelIntervalFactor sets the default CoDelInterval to
	// DefaultCoDelIntervalFactor × CoDelTarget.
	DefaultCoDelIntervalFactor = 20
)

// Options configures a Limiter. The zero value of each field means its
// documented default.
type Options struct {
	// Limit is how many requests may run next at the same time; negative
	// panics. For CPU-bound handlers keep Limit below GOMAXPROCS: see the
	// package documentation for the sizing rule.
	//
	// 0 means the limit finds itself from what the handler completes and
	// how long goroutines wait for a P: see "A limit that finds itself" in
	// the package documentation.
	Limit int

	// MaxQueue bounds how many requests may wait for a slot.
	// 0 means DefaultQueueFactor × Limit; -1 means no queue at all (a
	// request that finds every slot busy is refused at once); below -1
	// panics.
	MaxQueue int

	// QueueTimeout is the most a request may wait in the queue. The wait
	// budget of a request is QueueTimeout, shortened by its context
	// deadline (less the estimated service time) if it has one.
	// 0 means DefaultQueueTimeout, and for a limit that finds itself
	// DefaultQueueRounds planned runs of the handler, at most
	// DefaultQueueTimeout (a queue is there to absorb bursts, and a
	// request that waits longer than a few runs of the handler is likely
	// to reach its client after the client gave up); -1 means no timeout
	// (a request waits until a slot comes free or its context ends);
	// below -1 panics.
	QueueTimeout time.Duration

	// Order is the order in which waiting requests get a slot. The zero
	// value is FIFO.
	Order Order

	// CoDelTarget, if positive, enables CoDel-style control of the queue
	// delay: when the queue has not been empty at any moment during the
	// last CoDelInterval, the wait budget of new arrivals drops to
	// CoDelTarget, so a standing queue drains instead of staying full.
	// 0 means off; negative panics.
	CoDelTarget time.Duration

	// CoDelInterval is the window of CoDel control. 0 means
	// DefaultCoDelIntervalFactor × CoDelTarget; negative panics.
	CoDelInterval time.Duration

	// Counter, if not nil, is the counter of running requests, so that a
	// health check or the metrics package can read it. The Limiter admits
	// on it with TryInc; nothing else may increment it. Nil means a
	// counter of the Limiter's own.
	Counter *inflight.Counter

	// Reject, if not nil, writes the answer to a refused request instead
	// of the default. When it is called, Retry-After is already set on w
	// with a value of this request's own (and, with Priority, the level
	// refused: see Handler); Reject writes the status and the body. A
	// Limiter sets no Connection header: the connection stays open
	// unless Reject closes it. It is not called for requests whose
	// client went away. The default is 503 Service Unavailable with a
	// short plain-text body.
	Reject http.Handler

	// Priority, if not nil, gives each request its level (see package
	// priority): the queue serves the highest level first (in Order
	// within a level), a newcomer to a full queue pushes out the oldest
	// waiter of the lowest level below its own, and a request's place in
	// line, which its estimated wait is computed from, counts only the
	// waiters served before it; with fewer than Limit of them it is never
	// refused on the estimate, and with waiters of lower levels behind it
	// it is refused on its mean wait rather than on the bound (it may then
	// wait out its budget and be refused at its end). A free slot is
	// anyone's: with nobody waiting, a request of any level runs at once.
	// Acquire takes the level from its context (priority.FromContext). A
	// refusal names the level refused in the header
	// priority.DefaultHeader. Nil means every request is equal, as
	// without this option.
	Priority priority.Classifier

	// Tenant, if not nil, names the tenant (a customer, an API key) of a
	// request: within a level, the queue takes turns between tenants, and
	// a full queue pushes out the oldest waiter of the tenant with the
	// most, for a newcomer of its level too when that tenant has at least
	// two waiters more than the newcomer's, so one noisy tenant cannot
	// take its level's whole share. Tenants are told apart by a hash, in
	// a bounded number of groups. Without Priority, all requests are of
	// priority.Default. It must be cheap and must not allocate. Nil means
	// no tenants.
	Tenant func(*http.Request) string
}

// noTimeout is the wait budget of QueueTimeout -1: longer than any wait.
const noTimeout = time.Duration(math.MaxInt64)

// Order is the order in which queued requests are served.
type Order uint8

const (
	// FIFO serves the request that waited longest first: fair, and with the
	// wait-budget check every admitted request is likely to make it.
	FIFO Order = iota
	// LIFO serves the newest request first. Under overload it serves the
	// clients most likely to still be waiting; when the queue is full the
	// oldest waiter is refused to make room for the newcomer.
	LIFO
)

// A Limiter runs at most Limit requests at once and queues a bounded
// number of others for a bounded time. Create it with New. A Limiter is
// safe for concurrent use by multiple goroutines; one Limiter may guard
// several routes, which then share its slots and its queue, and callers
// outside HTTP share them too through Acquire and TryAcquire.
type Limiter struct {
	limit    int64                // fixed limit; 0 when ctl finds it
	ctl      *adaptive.Controller // nil: the limit is fixed
	qfactor  int64                // > 0: the queue bound is qfactor × the limit of the moment
	rounds   bool                 // the wait budget follows the planned service time
	maxQueue int
	timeout  time.Duration
	order    Order
	target   time.Duration // CoDel target, 0 = off
	interval time.Duration // CoDel interval
	reject   http.Handler
	running  *inflight.Counter
	gosched  func()     // runtime.Gosched; tests count the calls
	maxprocs func() int // runtime.GOMAXPROCS(0); tests replace it
	// procs caches maxprocs(), refreshed every procsEvery handoffs: it
	// is read on each handoff and written rarely.
	procs atomic.Int64
	// queued is read by every request and written only when the queue
	// changes: it shares its cache line with the read-only fields above,
	// not with the counters every request writes.
	queued atomic.Int64 // gauge mirrored from q.n, read without mu
	_      [64]byte

	admitted atomic.Uint64
	_        [56]byte
	svc      atomic.Int64 // EWMA of handler duration, nanoseconds
	svcDev   atomic.Int64 // EWMA of its absolute deviation, nanoseconds

	full, overBudget, timedOut, canceledN, abandoned atomic.Uint64
	waited                                           *histogram.Histogram // time queued

	levels *levels // nil without Options.Priority and Tenant

	mu       sync.Mutex
	q        prioritize.Queue[*waiter]
	handoffs uint64 // slots handed to a waiter on release
	// busySince is when the queue last became non-empty: CoDel's standing
	// queue is one that has stayed non-empty for longer than interval.
	busySince time.Time
}

// Limit returns a middleware that runs at most n requests at once with the
// default queue (DefaultQueueFactor × n waiters, each for at most
// DefaultQueueTimeout); n = 0 lets the limit find itself. It is
// New(Options{Limit: n}).Handler.
func Limit(n int) func(http.Handler) http.Handler {
	return New(Options{Limit: n}).Handler
}

// New returns a Limiter configured by o. It panics if an option is invalid.
func New(o Options) *Limiter {
	switch {
	case o.Limit < 0:
		panic("concurrency: Limit must be >= 0")
	case o.MaxQueue < -1:
		panic("concurrency: MaxQueue must be >= -1")
	case o.QueueTimeout < -1:
		panic("concurrency: QueueTimeout must be >= -1")
	case o.Order > LIFO:
		panic("concurrency: unknown Order")
	case o.CoDelTarget < 0 || o.CoDelInterval < 0:
		panic("concurrency: CoDelTarget and CoDelInterval must be >= 0")
	}
	var qfactor int64
	rounds := o.Limit == 0 && o.QueueTimeout == 0
	switch o.MaxQueue {
	case 0:
		o.MaxQueue = DefaultQueueFactor * o.Limit
		if o.Limit == 0 {
			qfactor = DefaultQueueFactor
		}
	case -1:
		o.MaxQueue = 0
	}
	switch o.QueueTimeout {
	case 0:
		o.QueueTimeout = DefaultQueueTimeout
	case -1:
		o.QueueTimeout = noTimeout
	}
	if o.CoDelTarget > 0 && o.CoDelInterval == 0 {
		o.CoDelInterval = DefaultCoDelIntervalFactor * o.CoDelTarget
	}
	l := &Limiter{
		limit:    int64(o.Limit),
		qfactor:  qfactor,
		rounds:   rounds,
		maxQueue: o.MaxQueue,
		timeout:  o.QueueTimeout,
		order:    o.Order,
		target:   o.CoDelTarget,
		interval: o.CoDelInterval,
		reject:   o.Reject,
		running:  o.Counter,
		gosched:  runtime.Gosched,
		maxprocs: func() int { return runtime.GOMAXPROCS(0) },
		waited:   histogram.New(queueWaitBounds, 1e-9),
	}
	if l.running == nil {
		l.running = new(inflight.Counter)
	}
	if o.Priority != nil || o.Tenant != nil {
		l.levels = &levels{classify: o.Priority, tenant: o.Tenant}
		l.q.Fair = o.Tenant != nil
	}
	l.procs.Store(int64(l.maxprocs()))
	if o.Limit == 0 {
		l.ctl = newController(l.running)
	}
	return l
}

// Handler returns next guarded by l. It admits requests by the same rules
// as Acquire; only the answer to a refusal is its own.
//
// A request that finds a free slot runs next at once. Otherwise it waits in
// the queue, unless the queue is full, or others already wait and its
// estimated wait (its place in the queue / Limit × the planned handler
// duration) exceeds its wait budget: then it is refused at once. A request
// that finds nobody waiting waits whatever the estimate says. A request
// still queued when its budget runs out is refused then.
//
// A refusal is 503 Service Unavailable with Retry-After (whole seconds,
// rounded up, from the estimated time for the queue to drain),
// Content-Type text/plain; charset=utf-8 and a short fixed body, or
// whatever Options.Reject writes. A request whose context ends while it
// waits, or had already ended when it found every slot busy, is never
// passed to next, not even when a slot comes free at that very moment. If
// its client is provably gone (the context canceled as net/http cancels
// it when the connection closes or the HTTP/2 stream is reset, and the
// writer's http.CloseNotifier reports the close) it is counted as
// abandoned and gets nothing: Handler panics with http.ErrAbortHandler,
// and net/http closes the connection (or resets the stream) without an
// answer. Any other end is refused, since the client may still be
// waiting: a passed deadline (context.DeadlineExceeded, as error or as
// cause) as TimedOut, any other cancellation (the server's BaseContext, a
// middleware outside, a writer that reports no close) as Canceled, once
// the writer has had up to 50 ms to report a close (net/http reports it
// just after it cancels the context). A request is never answered with
// net/http's implicit 200 for work that did not run.
//
// With Options.Priority, the queue is ordered by level (see Options), and
// a refusal also names the level refused in the header
// priority.DefaultHeader ("Frontdoor-Priority: sheddable"), set before
// Reject is called so that Reject can read it.
//
// next sees the ResponseWriter and Request unchanged, so every optional
// interface of the writer survives. The slot is released exactly once
// when next returns or panics (http.ErrAbortHandler included; the panic
// goes on to net/http); when it passes to a waiter and GOMAXPROCS is above
// Limit, the finished request yields its P to that waiter first (see the
// package documentation). Handler is safe for concurrent use by multiple
// goroutines.
func (l *Limiter) Handler(next http.Handler) http.Handler {
	if l.levels != nil {
		return l.levelHandler(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why, ok := l.acquire(r.Context()); !ok {
			if why == 0 {
				l.canceled(w, r)
			}
			l.refuse(w, r)
			return
		}
		l.serve(next, w, r)
	})
}

// canceled settles a request whose context was canceled before it got a
// slot, not by a deadline: if its client is provably gone it counts it as
// abandoned and panics with http.ErrAbortHandler, so that nothing is
// written; otherwise it counts it as refused with Reason Canceled, and
// the caller refuses it.
func (l *Limiter) canceled(w http.ResponseWriter, r *http.Request) {
	if gone.Client(r.Context(), w) {
		l.abandoned.Add(1)
		panic(http.ErrAbortHandler)
	}
	l.canceledN.Add(1)
}

// serve runs next for a request that holds a slot and gives the slot back
// when next returns or panics, timing it for the service-time estimate
// (and, for a limit that finds itself, for its controller).
func (l *Limiter) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	if l.ctl != nil {
		defer l.doneSampled(l.ctl.Start(l.admitted.Load()), r.Context())
	} else {
		defer l.done(l.started())
	}
	next.ServeHTTP(w, r)
}
