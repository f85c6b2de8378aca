package prioritize

import (
	"sync"
	"sync/atomic"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/priority"
)

const (
	// sampleEvery is how many arrivals of a level pass between two
	// samples of the in-flight count of every level.
	sampleEvery = 8
	// window is how many samples make one estimate of the demand of each
	// level, after which the reserves are computed anew.
	window = 32
)

// A Gate admits requests against a limit of requests in flight, with no
// queue, so that the lowest levels are refused first: a request of a level
// is admitted while the count stays below the limit less the slots
// reserved for the levels above (see reserve). The reserve of a level
// follows the recent demand of the levels above it, so a level that nobody
// above competes with may use the whole limit.
//
// Demand is the mean number of requests of each level in flight, sampled
// at arrivals (every sampleEvery arrivals of a level) and averaged over
// window samples; an estimate rises at once to a higher window mean and
// falls by a quarter of the gap per window, so a burst from above is
// protected at once and a lull gives the capacity back within a few
// windows. Until the first window closes nothing is reserved.
//
// The zero value is ready to use. A Gate is safe for concurrent use by
// multiple goroutines. Nothing on the admission path allocates; the
// reserves are computed on the path of one arrival in
// sampleEvery × window, in time linear in the limit at most.
type Gate struct {
	// reserved[i] is how many slots level i leaves free for the levels
	// above. Read on every request, written once a window.
	reserved [priority.NumLevels]atomic.Int64
	_        [64]byte
	// per[i] is written by every request of level i.
	per [priority.NumLevels]levelCounts

	mu      sync.Mutex
	sum     [priority.NumLevels]int64   // in flight, summed over the samples of this window
	samples int                         // samples in this window
	est     [priority.NumLevels]float64 // mean in flight per level
}

// levelCounts are one level's counters, on a cache line of their own.
type levelCounts struct {
	arrived  atomic.Uint64
	refused  atomic.Uint64
	inFlight atomic.Int64
	_        [40]byte
}

// TryAcquire counts one request of level l in c if, counted in, it leaves
// at least the reserve of l free below limit, and reports whether it did.
// limit may change from one call to the next (a limit that finds itself);
// the reserve follows at the next window. A true result must be matched by
// exactly one Release with the same c and l.
func (g *Gate) TryAcquire(c *inflight.Counter, limit int64, l priority.Level) bool {
	i := l.Index()
	p := &g.per[i]
	if p.arrived.Add(1)%sampleEvery == 0 {
		g.sample(limit)
	}
	if !c.TryInc(limit - g.reserved[i].Load()) {
		p.refused.Add(1)
		return false
	}
	p.inFlight.Add(1)
	return true
}

// Release ends a request of level l admitted by TryAcquire.
func (g *Gate) Release(c *inflight.Counter, l priority.Level) {
	g.per[l.Index()].inFlight.Add(-1)
	c.Dec()
}

// Counts returns how many requests of level l were admitted and refused.
func (g *Gate) Counts(l priority.Level) (admitted, refused uint64) {
	p := &g.per[l.Index()]
	// refused first: arrived is counted before refused, so it is never
	// below the refused read before it.
	refused = p.refused.Load()
	return p.arrived.Load() - refused, refused
}

// Reserved returns how many slots level l now leaves free for the levels
// above it.
func (g *Gate) Reserved(l priority.Level) int64 {
	return g.reserved[l.Index()].Load()
}

// sample adds the in-flight count of every level to the window, and closes
// the window when it is full. A sample that finds another in progress is
// skipped: the samples are a statistic, not a count.
func (g *Gate) sample(limit int64) {
	if !g.mu.TryLock() {
		return
	}
	defer g.mu.Unlock()
	for i := range g.per {
		g.sum[i] += g.per[i].inFlight.Load()
	}
	g.samples++
	if g.samples < window {
		return
	}
	for i := range g.est {
		mean := float64(g.sum[i]) / float64(g.samples)
		e := g.est[i]
		switch {
		case mean >= e:
			e = mean
		case mean == 0 && e < 1.0/window:
			e = 0 // fewer than one request in flight in a window: gone
		default:
			e -= (e - mean) / 4
		}
		g.est[i] = e
		g.sum[i] = 0
	}
	g.samples = 0
	above := 0.0
	for i := len(g.est) - 1; i >= 0; i-- {
		g.reserved[i].Store(reserve(above, limit))
		above += g.est[i]
	}
}
