package shed

import (
	"context"
	"net/http"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/adaptive"
)

// initialLimit is where a limit that finds itself starts: low enough that
// the first windows measure the service time without queueing; the limit
// then doubles per window while goodput rises with it.
const initialLimit = 4

func newController() *adaptive.Controller { return adaptive.New(initialLimit) }

// adaptiveHandler is Handler for a Shedder whose limit finds itself: the
// same admission, with the controller told of each refusal and completion.
func (s *Shedder) adaptiveHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.exempt != nil && s.exempt(r) {
			s.exempted.Add(1)
			next.ServeHTTP(w, r)
			return
		}
		if !s.counter.TryInc(s.ctl.Limit()) {
			s.shed.Add(1)
			s.ctl.Bound()
			s.reject.ServeHTTP(w, r)
			return
		}
		defer s.done(s.ctl.Start(s.admitted.Add(1)), r.Context())
		next.ServeHTTP(w, r)
	})
}

// done releases the place of a request admitted with token.
func (s *Shedder) done(token int64, ctx context.Context) {
	s.counter.Dec()
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
