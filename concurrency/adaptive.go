package concurrency

import (
	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/internal/adaptive"
)

// newController returns the controller of a limit that finds itself,
// reading the running requests from c. It heeds goroutines waiting for a
// P in the first window: a Limiter is the one closest to CPU-bound
// handlers.
func newController(c *inflight.Counter) *adaptive.Controller {
	return adaptive.New(adaptive.Config{InFlight: c.Load, SchedWindows: 1})
}

// lim returns the limit of the moment: one atomic load when it finds
// itself.
func (l *Limiter) lim() int64 {
	if l.ctl != nil {
		return l.ctl.Limit()
	}
	return l.limit
}

// queueCap returns the queue bound of the moment.
func (l *Limiter) queueCap() int {
	if l.qfactor > 0 {
		return int(l.qfactor * l.lim())
	}
	return l.maxQueue
}

// Signals are the measurements behind a limit that finds itself, as of
// the last window its controller closed (a window lasts a few request
// durations): the limit, the goodput (completions per second for callers
// still there, within their deadline), the highest recent goodput, the
// baseline duration without queueing, the mean duration, the scheduler
// latency (99th percentile of how long runnable goroutines waited for a
// P), the mean queue wait (0 without a queue) and the count of windows.
type Signals = adaptive.Signals

// signals returns a copy of c's signals, nil for a fixed limit.
func signals(c *adaptive.Controller) *Signals {
	if c == nil {
		return nil
	}
	s := c.Signals()
	return &s
}
