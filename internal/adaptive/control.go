package adaptive

import (
	"math"
	"math/bits"
	"time"
)

const (
	// gain is how far above the estimated knee the limit sits, so that
	// whatever requests wait on stays busy through the noise of arrivals.
	// It is also the growth per window while the limit binds below the
	// knee (BBR's probing gain).
	gain = 1.25
	// inflation is the latency above the baseline that counts as queueing:
	// half of what the gain adds at the knee.
	inflation = 1 + (gain-1)/2
	// rateWindows is how many recent windows the capacity estimate keeps
	// (the highest goodput among them).
	rateWindows = 5
	// horizon is how many windows a baseline stays valid without a window
	// that confirms it; after that a window below the limit may raise it.
	horizon = 32
	// minSamples is the fewest sampled completions a window closes with,
	// targetSamples what the sampling rate aims for.
	minSamples    = 16
	targetSamples = 64
	// minWindow is the shortest window; a window also lasts at least two
	// baselines, so that most of its requests started inside it.
	minWindow = 20 * time.Millisecond
	// schedKnee is the scheduler latency (99th percentile) at which
	// goroutines wait too long for a P: a fifth of the runtime's 10 ms
	// preemption slice, so that a refusal still goes out within a few
	// milliseconds.
	schedKnee = 2 * time.Millisecond
	// minHold and maxHold bound how many windows a ceiling set by the
	// scheduler latency holds.
	minHold, maxHold = 8, 256
)

// state is the controller's memory, guarded by Controller.mu.
type state struct {
	lim     float64 // the limit before rounding
	start   int64   // when the current window started (ns since epoch)
	startup bool    // doubling per window from a cold start

	prev     window
	havePrev bool
	rates    [rateWindows]float64
	ri       int

	base    time.Duration // service time without queueing; 0 = unknown
	baseAge int           // windows since the baseline was confirmed

	ceil      float64 // set by scheduler latency; 0 = none
	ceilLeft  int     // windows the ceiling still holds
	hold      int     // windows the next ceiling holds
	sinceCeil int     // windows since the ceiling expired
}

// window holds the measurements of one closed window.
type window struct {
	lim      float64       // the limit during the window
	rate     float64       // completions still wanted, per second
	all      float64       // every completion, per second
	inflight float64       // mean requests in flight (all completions × latency)
	lat      time.Duration // mean latency of the sampled requests
	se       time.Duration // its standard error
	sat      bool          // the limit bound
	sched    time.Duration // scheduler latency, 99th percentile
	wait     time.Duration // mean queue wait
}

// closeWindow measures the window that ends at now and sets the limit for
// the next. It runs under c.mu.
func (c *Controller) closeWindow(now int64) {
	st := &c.st
	elapsed := now - st.start
	// Start-up asks only whether goodput doubled with the limit: half the
	// samples tell that.
	if need := int64(minSamples) >> b2i(st.startup); c.samples.Load() < need && elapsed < 8*int64(c.minLen()) {
		return // too few samples to say anything yet
	}
	n := c.samples.Swap(0)
	w := window{
		lim:  st.lim,
		rate: float64(c.count.Swap(0)) / time.Duration(elapsed).Seconds(),
		lat:  time.Duration(c.latSum.Swap(0) / max(n, 1)),
		sat:  c.sat.Swap(false),
	}
	if sq := c.latSq.Swap(0); n > 1 {
		mean := float64(w.lat) / 1e3 // µs
		v := max(float64(sq)/float64(n)-mean*mean, 0) * float64(n) / float64(n-1)
		w.se = time.Duration(math.Sqrt(v/float64(n)) * 1e3)
	}
	all := float64(c.all.Swap(0)) / time.Duration(elapsed).Seconds()
	w.all = all
	w.inflight = all * w.lat.Seconds()
	if k := c.waits.Swap(0); k > 0 {
		w.wait = time.Duration(c.waitSum.Swap(0) / k)
	} else {
		c.waitSum.Store(0)
	}
	w.sched = c.sched()

	c.update(w)
	if c.debug != nil {
		c.debug(w, *st)
	}

	// Rounded up: at a limit of a core or two, rounding down would take
	// away the very margin the gain adds (1.4 would run one request where
	// the cores can take a second one's share too).
	lim := max(1, int64(math.Ceil(st.lim-1e-9)))
	c.limit.Store(lim)
	st.start = now
	st.prev, st.havePrev = w, true
	next := c.minLen()
	c.end.Store(now + int64(next))
	// Sample about targetSamples completions per window.
	expect := all * next.Seconds() / targetSamples
	shift := uint32(0)
	if expect >= 2 {
		shift = uint32(bits.Len64(uint64(expect)) - 1)
	}
	c.shift.Store(min(shift, 20))

	c.sig = Signals{
		Limit:        lim,
		Goodput:      w.rate,
		Capacity:     st.capacity(),
		Baseline:     st.base,
		Latency:      w.lat,
		SchedLatency: w.sched,
		QueueWait:    w.wait,
		Windows:      c.sig.Windows + 1,
	}
}

// minLen is the shortest length of the next window.
func (c *Controller) minLen() time.Duration { return max(minWindow, 2*c.st.base) }

// capacity is the highest goodput of recent windows.
func (st *state) capacity() float64 {
	c := 0.0
	for _, r := range st.rates {
		c = max(c, r)
	}
	return c
}

// update is the control law: it folds window w into the state and sets
// st.lim.
func (c *Controller) update(w window) {
	st := &c.st
	st.rates[st.ri%rateWindows] = w.rate
	st.ri++
	c.updateBaseline(w)
	base := st.base.Seconds()
	capacity := st.capacity()
	target := gain * capacity * base
	// Queueing: latency above the baseline by more than the window's noise.
	inflated := float64(w.lat-2*w.se) > inflation*float64(st.base)
	lim := st.lim

	switch {
	case st.startup:
		if !w.sat {
			break // demand is below the limit: nothing to learn yet
		}
		if !inflated && (!st.havePrev || w.rate >= gain*st.prev.rate) {
			lim *= 2
			break
		}
		st.startup = false
		lim = max(target, lim/2)
	case !w.sat:
		lim = max(lim, target) // never shrink while the limit does not bind
	case !inflated:
		lim = max(lim*gain, target) // the limit binds below the knee: grow
	default:
		// Queueing: back to the knee, at most halving per window. If the
		// work only got slower, latency does not follow the limit down and
		// the next window raises the baseline instead.
		lim = max(target, lim/2)
	}

	lim = c.schedCeiling(w, lim)
	st.lim = min(max(lim, 1), math.MaxInt32)
}

// updateBaseline keeps the service time without queueing: the lowest
// upper bound (mean + standard error) of recent windows. Any window may
// lower it; only evidence that latency does not depend on the limit may
// raise it.
func (c *Controller) updateBaseline(w window) {
	st := &c.st
	st.baseAge++
	if w.lat <= 0 {
		return
	}
	// The sampled mean misses the requests still running at the end of the
	// window; with a heavy tail and a growing limit those are the slow
	// ones. While the limit binds, the in-flight count sits at the limit,
	// and Little's law gives the latency from counts alone. The larger of
	// the two bounds the service time from above: it may lower the
	// baseline. Only the sampled mean may raise it, and only on evidence.
	// A window that began idle (the first one, or the first after a
	// quiet spell) holds fewer requests than the limit for part of its
	// length, so Little's bound is trusted up to twice the sampled one.
	ub := w.lat + w.se
	lower := ub
	if w.sat && w.all > 0 {
		lower = max(ub, min(time.Duration(w.lim/w.all*float64(time.Second)), 2*ub))
	}
	switch {
	case st.base == 0, lower <= st.base:
		st.base, st.baseAge = lower, 0
	case !w.sat && st.baseAge >= horizon:
		st.base, st.baseAge = ub, 0 // below the limit: what demand sees
	case !st.startup && w.sat && st.havePrev && st.prev.sat && latencyIndependent(st.prev, w):
		st.base, st.baseAge = ub, 0
	}
}

// latencyIndependent reports whether the limit and, with it, the in-flight
// count moved by at least a fifth between windows a and b while latency
// moved by under an eighth as much (in ratio): requests are not queueing
// behind each other.
func latencyIndependent(a, b window) bool {
	if a.inflight <= 0 || b.inflight <= 0 || a.lat <= 0 {
		return false
	}
	dlim := math.Log(b.lim / a.lim)
	dn := math.Log(b.inflight / a.inflight)
	dl := math.Abs(math.Log(float64(b.lat) / float64(a.lat)))
	// The measurement must be fine enough to see the difference.
	noise := float64(max(a.se, b.se)) / float64(min(a.lat, b.lat))
	// The limit moved, and the in-flight count followed it: a deliberate
	// change, not noise in a window.
	return math.Abs(dlim) >= math.Log(1.2) && dn*dlim > 0 && math.Abs(dn) >= math.Log(1.2) &&
		dl < math.Abs(dn)/8 && noise < math.Abs(dn)/8
}

// schedCeiling cuts lim when goroutines waited too long for a P, and
// holds it under the cut for a while.
//
// Only a limit within twice GOMAXPROCS is cut, and not during the start-up:
// far above GOMAXPROCS, handlers that hold Ps show as queueing latency long
// before, and a scheduler latency with another cause (another process,
// the collector) must not keep an I/O-bound limit down. The cut never goes below GOMAXPROCS − 1,
// where CPU-bound handlers leave a P free.
func (c *Controller) schedCeiling(w window, lim float64) float64 {
	st := &c.st
	procs := float64(c.procs())
	if w.sched > schedKnee && w.lim <= 2*procs && !st.startup {
		ran := w.lim
		if !w.sat {
			ran = min(ran, math.Ceil(w.inflight)+1)
		}
		if cut := max(1, procs-1, min(lim, ran)*0.75); cut < lim {
			if st.ceil > 0 && st.ceilLeft == 0 && st.sinceCeil <= 2 {
				st.hold = min(st.hold*2, maxHold) // the last ceiling was needed
			}
			st.ceil, st.ceilLeft = cut, st.hold
			return cut
		}
	}
	if st.ceilLeft > 0 {
		st.ceilLeft--
		st.sinceCeil = 0
		return min(lim, st.ceil)
	}
	st.sinceCeil++
	if st.sinceCeil > st.hold {
		st.hold = minHold // no cut needed for a whole hold: start over
	}
	return lim
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
