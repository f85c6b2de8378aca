package retry

import (
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
)

// Stats is a snapshot of a Transport's counters. Totals count since the
// Transport's first use.
type Stats struct {
	Requests uint64 // RoundTrip calls
	Attempts uint64 // requests passed to Base: first attempts and retries
	Retries  uint64 // attempts after the first of their request
	// Throttled counts attempts refused locally by the adaptive throttle:
	// first attempts, for which RoundTrip returned a *ThrottledError, and
	// retries, after which it returned the previous attempt's outcome.
	Throttled uint64
	Refusals  uint64 // attempts answered 503 or 429
	Errors    uint64 // attempts for which Base returned an error

	// Retries not made, although the outcome was worth one, by reason
	// (attempts left over once MaxAttempts was reached are not counted):
	Unsafe     uint64 // the request was not idempotent or its body not replayable
	TooLong    uint64 // the wait would pass MaxWait or the context deadline
	OverBudget uint64 // the retry budget was spent

	// Budget is the number of retries that the budget allows now.
	Budget float64
	// Throttle is, per level (lowest first, index priority.Level.Index),
	// the probability that an attempt made now is refused locally; all 0
	// with the throttle off.
	Throttle [priority.NumLevels]float64
}

// Stats returns a snapshot of t's counters, read from atomics, and of its
// budget and throttle now.
func (t *Transport) Stats() Stats {
	s := t.load()
	now := time.Now()
	return Stats{
		Requests:   s.requests.Load(),
		Attempts:   s.attempts.Load(),
		Retries:    s.retries.Load(),
		Throttled:  s.throttled.Load(),
		Refusals:   s.refusals.Load(),
		Errors:     s.errors.Load(),
		Unsafe:     s.unsafe.Load(),
		TooLong:    s.tooLong.Load(),
		OverBudget: s.overBudget.Load(),
		Budget:     s.budget.available(now),
		Throttle:   s.throttle.probabilities(now),
	}
}
