package shed

import (
	"context"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/internal/adaptive"
)

// schedWindows: a Shedder's open limit is never cut for goroutines
// waiting for a P. In front of a concurrency.Limiter that wait is the
// Limiter's to cure (and on a shared host, another process's doing, which
// a cut to the Ps would turn into refusing nearly everything); CPU-bound
// handlers with no Limiter behind the Shedder show a queue growing behind
// the handler instead, which sets the limit.
const schedWindows = -1

func newController(c *inflight.Counter) *adaptive.Controller {
	return adaptive.New(adaptive.Config{InFlight: c.Load, SchedWindows: schedWindows})
}

// release gives back the place of a request that Handler admitted, with
// token from the controller, and tells the controller it completed.
func (s *Shedder) release(token int64, ctx context.Context) {
	s.Release()
	s.ctl.Done(token, ctx)
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
