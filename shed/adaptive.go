package shed

import (
	"context"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/adaptive"
)

// initialLimit is where a limit that finds itself starts: low enough that
// the first windows measure the service time without queueing; the limit
// then doubles per window while goodput rises with it.
const initialLimit = 4

func newController() *adaptive.Controller { return adaptive.New(initialLimit) }

// release gives back the place of a request that Handler admitted, with
// token from the controller, and tells the controller it completed.
func (s *Shedder) release(token int64, ctx context.Context) {
	s.Release()
	s.ctl.Done(token, ctx)
}

// Signals are the measurements behind a limit that finds itself, as of
// the last window the controller closed (a window lasts a few service
// times).
type Signals struct {
	// Goodput is the rate of completed requests whose client was still
	// there and whose deadline had not passed, per second.
	Goodput float64
	// Baseline is the estimated duration of a request that does not wait
	// behind others.
	Baseline time.Duration
	// Latency is the mean duration of the window's sampled requests.
	Latency time.Duration
	// SchedLatency is the 99th percentile of the time runnable goroutines
	// waited for a P: high when handlers hold every P.
	SchedLatency time.Duration
}

func signals(c *adaptive.Controller) *Signals {
	if c == nil {
		return nil
	}
	s := c.Signals()
	return &Signals{Goodput: s.Goodput, Baseline: s.Baseline, Latency: s.Latency, SchedLatency: s.SchedLatency}
}
