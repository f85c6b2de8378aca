package concurrency

import (
	"time"

	"github.com/frontdoor-go/frontdoor/internal/adaptive"
)

// newController returns the controller of a limit that finds itself. It
// starts one below GOMAXPROCS (at least 1): below the cores, so that the
// first windows measure the handler without queueing, and leaving a P for
// the front door when ReserveP added one.
func newController(procs int) *adaptive.Controller {
	return adaptive.New(int64(max(procs-1, 1)))
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
// the last window the controller closed (a window lasts a few service
// times).
type Signals struct {
	// Goodput is the rate of completed requests whose client was still
	// there and whose deadline had not passed, per second.
	Goodput float64
	// Baseline is the estimated duration of next for a request that does
	// not share the CPU (or whatever next waits on) with others.
	Baseline time.Duration
	// Latency is the mean duration of next for the window's sampled
	// requests.
	Latency time.Duration
	// SchedLatency is the 99th percentile of the time runnable goroutines
	// waited for a P: high when handlers hold every P.
	SchedLatency time.Duration
	// QueueWait is the mean time the window's queued requests waited.
	QueueWait time.Duration
}

func signals(c *adaptive.Controller) *Signals {
	if c == nil {
		return nil
	}
	s := c.Signals()
	return &Signals{Goodput: s.Goodput, Baseline: s.Baseline, Latency: s.Latency,
		SchedLatency: s.SchedLatency, QueueWait: s.QueueWait}
}
