package retry

import (
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for the zero fields of Transport.
const (
	DefaultMaxAttempts   = 3 // the first attempt and two retries
	DefaultBackoff       = 100 * time.Millisecond
	DefaultMaxWait       = 10 * time.Second
	DefaultBudgetRatio   = 0.2 // Finagle's default
	DefaultBudgetMinRate = 10  // retries per second; Finagle's default
	DefaultThrottleK     = 2   // the SRE book's default
)

// AttemptHeader is the request header in which the Transport numbers the
// retries of a request: "Frontdoor-Attempt: 2" on the first retry, 3 on
// the next. A first attempt does not carry it. Demote reads it.
const AttemptHeader = "Frontdoor-Attempt"

// Transport is an http.RoundTripper that retries what is safe to retry,
// when the server says it may, within a budget, and that stops sending
// when the server refuses most of what it is sent. See the package
// documentation for what it retries, how long it waits and what it counts.
//
// The zero value is ready to use: http.DefaultTransport and the default of
// every field. The fields must not be changed after the first RoundTrip;
// invalid ones panic there (or at the first Stats or
// CloseIdleConnections), with a message that starts with "retry: ".
// A Transport is safe for concurrent use by multiple goroutines; its
// budget and throttle are shared by every request it sends, so use one
// Transport per service called.
type Transport struct {
	// Base sends each attempt. Nil means http.DefaultTransport.
	Base http.RoundTripper

	// MaxAttempts is the most times a request is sent, the first included.
	// Zero means DefaultMaxAttempts; 1 means no retries (the throttle
	// still applies).
	MaxAttempts int

	// Backoff is the wait before the first retry of an attempt that was
	// answered without a Retry-After (or not answered): a random duration
	// between Backoff/2 and Backoff, doubled for each later retry. Zero
	// means DefaultBackoff.
	Backoff time.Duration

	// MaxWait caps any wait before a retry. A refusal whose Retry-After
	// asks for longer is returned at once, as is one whose Retry-After
	// reaches the request's context deadline: the Transport never sends
	// sooner than the server asked. Zero means DefaultMaxWait.
	MaxWait time.Duration

	// Idempotent, if not nil, reports whether a request whose method is
	// not idempotent (POST, PATCH, ...) may be sent again anyway, as a
	// request with an Idempotency-Key header may. It must be cheap and
	// must not read the body. Nil means only the header says so.
	Idempotent func(*http.Request) bool

	// BudgetRatio is the fraction of recent requests that may be retried,
	// beyond BudgetMinRate: over any 10 seconds, retries number at most
	// BudgetRatio × requests sent + 10 × BudgetMinRate. Zero means
	// DefaultBudgetRatio; -1 means none (only BudgetMinRate).
	BudgetRatio float64

	// BudgetMinRate is the rate of retries, per second, that the budget
	// allows whatever the number of requests. Zero means
	// DefaultBudgetMinRate; -1 means none.
	BudgetMinRate float64

	// ThrottleK is the K of adaptive throttling: a request of level
	// Critical is refused locally with probability
	// max(0, (requests − K·accepts) / (requests + 1)) over the last 30
	// seconds, lower levels sooner and CriticalPlus later. Zero means
	// DefaultThrottleK; -1 turns the throttle off; other values below 1
	// panic.
	ThrottleK float64

	once sync.Once
	s    *state
}

// state is what a Transport builds at its first use.
type state struct {
	base        http.RoundTripper
	maxAttempts int
	backoff     time.Duration
	maxWait     time.Duration
	budget      *budget
	throttle    *throttle // nil: off
	random      func() float64

	requests, attempts, retries, throttled atomic.Uint64
	refusals, errors, overBudget, tooLong  atomic.Uint64
	unsafe                                 atomic.Uint64
}

// load returns t's state, built and checked at the first call.
func (t *Transport) load() *state {
	t.once.Do(func() { t.s = t.build(time.Now()) })
	return t.s
}

func (t *Transport) build(now time.Time) *state {
	switch {
	case t.MaxAttempts < 0:
		panic("retry: MaxAttempts must be >= 0")
	case t.Backoff < 0:
		panic("retry: Backoff must be >= 0")
	case t.MaxWait < 0:
		panic("retry: MaxWait must be >= 0")
	case !(t.BudgetRatio >= 0) && t.BudgetRatio != -1: // NaN too
		panic("retry: BudgetRatio must be >= 0 or -1")
	case !(t.BudgetMinRate >= 0) && t.BudgetMinRate != -1:
		panic("retry: BudgetMinRate must be >= 0 or -1")
	case t.ThrottleK != 0 && t.ThrottleK != -1 && !(t.ThrottleK >= 1):
		panic("retry: ThrottleK must be >= 1, 0 or -1")
	}
	s := &state{
		base:        t.Base,
		maxAttempts: or(t.MaxAttempts, DefaultMaxAttempts),
		backoff:     or(t.Backoff, DefaultBackoff),
		maxWait:     or(t.MaxWait, DefaultMaxWait),
		random:      rand.Float64,
	}
	if s.base == nil {
		s.base = http.DefaultTransport
	}
	s.budget = newBudget(max(or(t.BudgetRatio, DefaultBudgetRatio), 0),
		max(or(t.BudgetMinRate, DefaultBudgetMinRate), 0), now)
	if t.ThrottleK != -1 {
		s.throttle = newThrottle(or(t.ThrottleK, DefaultThrottleK), now)
	}
	return s
}

// or returns v, or def if v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// CloseIdleConnections closes the idle connections of Base, if it has a
// CloseIdleConnections method (as *http.Transport has).
func (t *Transport) CloseIdleConnections() {
	if ci, ok := t.load().base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}
