package concurrency

import (
	"strconv"
	"time"
)

// A Reason says why a Limiter refused a caller.
type Reason uint8

const (
	// QueueFull: every slot was busy and the queue full, or, with LIFO,
	// the caller was pushed out of the queue by a newer one.
	QueueFull Reason = iota + 1
	// OverBudget: the estimated wait exceeded the caller's wait budget,
	// so it was refused at once instead of waiting in vain.
	OverBudget
	// TimedOut: the caller waited out its wait budget, or its context
	// deadline passed, before a slot came free.
	TimedOut
	// Canceled: the context of an HTTP request was canceled before it got
	// a slot, while its client may still be waiting (the server's
	// BaseContext, a middleware outside; see Handler). Acquire never
	// refuses for it: it returns the context's error.
	Canceled
)

func (r Reason) String() string {
	switch r {
	case QueueFull:
		return "queue full"
	case OverBudget:
		return "over budget"
	case TimedOut:
		return "timed out"
	case Canceled:
		return "canceled"
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// RefusedError is the error Acquire returns when it refuses a caller. The
// HTTP Handler answers the same refusals with 503 and Retry-After.
type RefusedError struct {
	Reason Reason
	// RetryAfter is when to try again: the value of the Retry-After
	// header the Handler would send, in whole seconds.
	RetryAfter time.Duration
}

func (e *RefusedError) Error() string {
	return "concurrency: refused (" + e.Reason.String() + "), retry after " + e.RetryAfter.String()
}
