package concurrency

import (
	"time"

	"github.com/frontdoor-go/frontdoor/internal/histogram"
	"github.com/frontdoor-go/frontdoor/priority"
)

// Stats is a snapshot of a Limiter's counters. Totals count since New.
type Stats struct {
	Running int64 // slots held now (requests running next, and Acquire callers)
	Queued  int64 // callers waiting for a slot now
	Limit   int   // the slot count
	// MaxQueue is the queue bound (0: no queue).
	MaxQueue int

	Admitted uint64 // slots taken: requests passed to next, and successful Acquire and TryAcquire
	// Refused is QueueFull + OverBudget + TimedOut + Canceled: requests
	// answered 503 and Acquire calls that returned a *RefusedError. A
	// failed TryAcquire is not counted.
	Refused    uint64
	QueueFull  uint64 // refused: queue full (or, LIFO, pushed out by a newer request)
	OverBudget uint64 // refused at once: the estimated wait exceeded the wait budget
	TimedOut   uint64 // refused after waiting out the wait budget or the context deadline
	Canceled   uint64 // refused: the request's context was canceled while its client may still wait
	// Abandoned counts callers that left before they got a slot, never
	// run and not answered: Acquire calls whose context was canceled, and
	// requests whose client is provably gone (see Handler).
	Abandoned uint64

	// ServiceTime is the moving average of how long a slot is held (the
	// duration of next), timed only while every slot is taken.
	ServiceTime time.Duration

	// QueueWait is the distribution of the time spent queued by requests
	// that queued, whatever their outcome. Requests that found a free slot
	// are not in it.
	QueueWait Histogram

	// Adaptive holds the signals behind a limit that finds itself; nil
	// for a fixed limit.
	Adaptive *Signals `json:",omitempty"`

	// Levels counts per level, lowest first (index
	// priority.Level.Index, as in priority.Levels), with Options.Priority
	// or Tenant; nil without.
	Levels *[priority.NumLevels]LevelStats `json:",omitempty"`
}

// LevelStats are the counters of one priority level.
type LevelStats struct {
	Admitted uint64 // slots taken by callers of the level
	Refused  uint64 // callers of the level refused, for any reason
}

// Stats returns a snapshot of l's counters, read from atomics.
func (l *Limiter) Stats() Stats {
	s := Stats{
		Running:     l.running.Load(),
		Queued:      l.queued.Load(),
		Limit:       int(l.lim()),
		MaxQueue:    l.queueCap(),
		Admitted:    l.admitted.Load(),
		QueueFull:   l.full.Load(),
		OverBudget:  l.overBudget.Load(),
		TimedOut:    l.timedOut.Load(),
		Canceled:    l.canceledN.Load(),
		Abandoned:   l.abandoned.Load(),
		ServiceTime: l.ServiceTime(),
		QueueWait:   l.waited.Snapshot(),
		Adaptive:    signals(l.ctl),
	}
	s.Refused = s.QueueFull + s.OverBudget + s.TimedOut + s.Canceled
	if l.levels != nil {
		s.Levels = new([priority.NumLevels]LevelStats)
		for i := range s.Levels {
			p := &l.levels.per[i]
			s.Levels[i] = LevelStats{Admitted: p.admitted.Load(), Refused: p.refused.Load()}
		}
	}
	return s
}

// queueWaitBounds are the upper bounds, in seconds, of the queue-wait
// histogram buckets.
var queueWaitBounds = []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5}

// Histogram is a snapshot of a fixed-bucket distribution. Counts are per
// bucket, not cumulative: Counts[i] counts observations v with
// Bounds[i-1] < v <= Bounds[i]; the last element, one past Bounds, counts
// those above every bound. Bounds and Sum are in seconds.
type Histogram = histogram.Snapshot
