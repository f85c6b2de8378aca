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
// A Fair Gate also shares each level between tenants (Node.Key's groups,
// Buckets of them) by their demand, refused requests included: a tenant
// that asks for more than its max-min fair share of its level is refused
// while the count is within the few slots of its level's cutoff that the
// tenants under their share need to find one free (see shares). So a
// tenant that sends more than the others keeps what nobody else wants,
// and gives up first what others want.
//
// The zero value is ready to use, not fair. A Gate is safe for concurrent
// use by multiple goroutines. Nothing on the admission path allocates; the
// reserves are computed on the path of one arrival in sampleEvery ×
// window, in time linear in the limit at most (and, for a Fair Gate, in
// Buckets log Buckets).
type Gate struct {
	// Fair, set before the first TryAcquire, shares each level between
	// tenants.
	Fair bool

	// reserved[i] is how many slots level i leaves free for the levels
	// above. Read on every request, written once a window.
	reserved [priority.NumLevels]atomic.Int64
	_        [64]byte
	// per[i] is written by every request of level i.
	per [priority.NumLevels]levelCounts

	// tenants[i][b] is how many requests of level i and key group b are
	// in flight, active[i] how many groups of level i have any, and
	// shares their demand: Fair only.
	tenants [priority.NumLevels][Buckets]atomic.Int64
	active  [priority.NumLevels]atomic.Int64
	shares  shares

	mu      sync.Mutex
	sum     [priority.NumLevels]int64   // in flight, summed over the samples of this window
	samples int                         // samples in this window
	est     [priority.NumLevels]float64 // mean in flight per level
}

// levelCounts are one level's counters, on a cache line of their own.
type levelCounts struct {
	arrived  atomic.Uint64 // paces the samples
	admitted atomic.Uint64
	refused  atomic.Uint64
	inFlight atomic.Int64
	_        [32]byte
}

// TryAcquire counts one request of level l (and tenant key, if g is Fair)
// in c if, counted in, it leaves at least the reserve of l free below
// limit, and reports whether it did. limit may change from one call to
// the next (a limit that finds itself); the reserve follows at the next
// window. A true result must be matched by exactly one Release with the
// same c, l and key.
func (g *Gate) TryAcquire(c *inflight.Counter, limit int64, l priority.Level, key uint64) bool {
	i := l.Index()
	p := &g.per[i]
	if g.Fair {
		g.shares.arrivals[i][key%Buckets].Add(1)
	}
	if p.arrived.Add(1)%sampleEvery == 0 {
		g.sample(limit)
	}
	cutoff := limit - g.reserved[i].Load()
	if g.Fair && g.overShare(c, cutoff, i, key) || !c.TryInc(cutoff) {
		p.refused.Add(1)
		return false
	}
	// The lowest level is above nobody: its demand is never needed, but
	// for a Fair Gate's shares.
	p.admitted.Add(1)
	if i > 0 || g.Fair {
		p.inFlight.Add(1)
	}
	if g.Fair && g.tenants[i][key%Buckets].Add(1) == 1 {
		g.active[i].Add(1)
	}
	return true
}

// Release ends a request of level l and tenant key admitted by TryAcquire.
func (g *Gate) Release(c *inflight.Counter, l priority.Level, key uint64) {
	i := l.Index()
	if g.Fair && g.tenants[i][key%Buckets].Add(-1) == 0 {
		g.active[i].Add(-1)
	}
	if i > 0 || g.Fair {
		g.per[i].inFlight.Add(-1)
	}
	c.Dec()
}

// Counts returns how many requests of level l were admitted and refused.
// Each is a counter of its own, so each only rises from one call to the
// next; the two are not read at one instant.
func (g *Gate) Counts(l priority.Level) (admitted, refused uint64) {
	p := &g.per[l.Index()]
	return p.admitted.Load(), p.refused.Load()
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
	var mean [priority.NumLevels]float64
	for i := range g.est {
		mean[i] = float64(g.sum[i]) / float64(g.samples)
		g.est[i] = follow(g.est[i], mean[i])
		g.sum[i] = 0
	}
	g.samples = 0
	above := 0.0
	for i := len(g.est) - 1; i >= 0; i-- {
		r := reserve(above, limit)
		g.reserved[i].Store(r)
		above += g.est[i]
		if g.Fair {
			g.share(i, mean[i], limit-r)
		}
	}
}

// follow returns estimate e moved to the mean of a window: at once to a
// higher mean, by a quarter of the gap to a lower one, and to 0 from
// below one request in flight in a window.
func follow(e, mean float64) float64 {
	switch {
	case mean >= e:
		return mean
	case mean == 0 && e < 1.0/window:
		return 0 // fewer than one request in flight in a window: gone
	default:
		return e - (e-mean)/4
	}
}
