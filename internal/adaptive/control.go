package adaptive

import (
	"math"
	"math/bits"
	"time"
)

const (
	// openLimit is where a limit starts and where it returns once it has
	// not bound for reopenWindows windows: no evidence of overload, no
	// limit a server at full traffic from its first second would meet.
	openLimit = 1024
	// reopenWindows is how many windows in a row a limit set on evidence
	// must go without binding before it opens again.
	reopenWindows = 16
	// gain is how far above the estimated knee the limit sits, so that
	// whatever requests wait on stays busy through the noise of arrivals.
	gain = 1.05
	// inflation is the latency above the baseline that counts as queueing
	// once the limit binds: half of what the gain adds at the knee.
	inflation = 1 + (gain-1)/2
	// growth is the growth of a limit that binds below the knee in its
	// first window there; it doubles with each window in a row, up to
	// maxGrowth: a window of noise at the knee moves the limit little, a
	// knee that moved up is found within a few windows.
	growth, maxGrowth = 0.1, 0.5
	// riseWindows is how many windows latency must rise (beyond noise,
	// with no fall between) to show a queue growing behind the handler (a
	// pool, a lock); riseFactor is how far it must have risen over them,
	// with more requests in flight than before it and no more goodput
	// than of late. One slower dependency raises latency in a window or two and
	// then holds; a queue that grows keeps rising.
	riseWindows = 4
	riseFactor  = 2
	// wasteShare is the share of completions for callers already gone
	// (client left, deadline passed) that shows the server working mostly
	// for nobody; wasteWindows is how many windows in a row it must last.
	wasteShare   = 0.5
	wasteWindows = 2
	// rateWindows is how many recent windows the capacity estimate keeps
	// (the median goodput among them).
	rateWindows = 5
	// latWindows is how many recent windows the baseline is drawn from
	// when a limit is set on evidence: the lowest latency among them.
	latWindows = 16
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
	// scheduler latency holds, and how long a cut that cured nothing
	// keeps the scheduler latency from cutting an open limit again.
	minHold, maxHold = 8, 256
)

// state is the controller's memory, guarded by Controller.mu.
type state struct {
	lim   float64 // the limit before rounding
	open  bool    // no evidence of overload: at least openLimit
	start int64   // when the current window started (ns since epoch)

	prev     window
	havePrev bool
	good     [rateWindows]float64      // completions still wanted of recent windows
	spans    [rateWindows]float64      // and their lengths, in seconds
	lats     [latWindows]time.Duration // lat + se of recent windows; 0 = none
	ri, li   int

	base    time.Duration // service time without queueing; 0 = unknown
	baseAge int           // windows since the baseline was confirmed

	rising, wasting, calm int     // windows in a row: see update and evidence
	grow                  float64 // the growth of the last window
	riseFrom              window  // the window before the rise
	drainUntil            int64   // windows that start before this measure no limit

	hot    int     // windows in a row with goroutines waiting for a P
	trial  bool    // a cut of an open limit to the Ps awaits proof that it cures
	before float64 // the limit before that cut
	mute   int     // windows the scheduler latency cannot cut an open limit
	muteN  int     // the next mute
	cpu    cpuCeiling
}

// cpuCeiling holds a limit near GOMAXPROCS under a cut that the scheduler
// latency proved necessary.
type cpuCeiling struct {
	ceil      float64 // 0 = none
	left      int     // windows the ceiling still holds
	hold      int     // windows the next ceiling holds
	sinceCeil int     // windows since the ceiling expired
}

// window holds the measurements of one closed window.
type window struct {
	lim      float64       // the limit during the window
	secs     float64       // its length
	rate     float64       // completions still wanted, per second
	all      float64       // every completion, per second
	inflight float64       // mean requests in flight (all completions × latency)
	now      int64         // requests in flight as the window closed
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
	if c.samples.Load() < minSamples && elapsed < 8*int64(c.minLen()) {
		return // too few samples to say anything yet
	}
	n := c.samples.Swap(0)
	secs := time.Duration(elapsed).Seconds()
	w := window{
		lim:  st.lim,
		secs: secs,
		rate: float64(c.count.Swap(0)) / secs,
		all:  float64(c.all.Swap(0)) / secs,
		lat:  time.Duration(c.latSum.Swap(0) / max(n, 1)),
		sat:  c.sat.Swap(false),
		now:  c.inflight(),
	}
	if sq := c.latSq.Swap(0); n > 1 {
		mean := float64(w.lat) / 1e3 // µs
		v := max(float64(sq)/float64(n)-mean*mean, 0) * float64(n) / float64(n-1)
		w.se = time.Duration(math.Sqrt(v/float64(n)) * 1e3)
	}
	w.inflight = w.all * w.lat.Seconds()
	if k := c.waits.Swap(0); k > 0 {
		w.wait = time.Duration(c.waitSum.Swap(0) / k)
	} else {
		c.waitSum.Store(0)
	}
	w.sched = c.sched()
	c.publish(now, w)
}

// probe is called on a sampled admission once the window is overdue. An
// open limit does not wait on completions to learn that goroutines wait
// for a P: CPU-bound handlers far above the cores complete late. It runs
// under c.mu.
func (c *Controller) probe(now int64) {
	st := &c.st
	if !st.open || c.samples.Load() >= minSamples {
		c.closeWindow(now)
		return
	}
	w := window{lim: st.lim, now: c.inflight(), sched: c.sched()}
	st.lim = c.schedCut(w, st.lim)
	if c.debug != nil {
		c.debug(w, *st)
	}
	c.limit.Store(max(1, int64(math.Ceil(st.lim-1e-9))))
	c.end.Store(now + int64(minWindow))
}

// publish folds w into the state and publishes the new limit and
// sampling rate. It runs under c.mu.
func (c *Controller) publish(now int64, w window) {
	st := &c.st
	c.update(now, w)
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
	expect := w.all * next.Seconds() / targetSamples
	shift := uint32(0)
	if expect >= 2 {
		shift = uint32(bits.Len64(uint64(expect)) - 1)
	}
	c.shift.Store(min(shift, 20))

	c.sig = Signals{
		Limit:        lim,
		Open:         st.open,
		Goodput:      w.rate,
		Capacity:     st.capacity(),
		Baseline:     st.base,
		Latency:      w.lat,
		SchedLatency: w.sched,
		QueueWait:    w.wait,
		Windows:      c.sig.Windows + 1,
	}
}

// minLen is the shortest length of the next window: two baselines once
// the limit is set, so that most of a window's requests started inside
// it; an open limit watches for evidence in windows as short as their
// samples allow.
func (c *Controller) minLen() time.Duration {
	if c.st.open {
		return minWindow
	}
	return max(minWindow, 2*c.st.base)
}

// capacity is the goodput of recent windows together: their completions
// still wanted over their length.
func (st *state) capacity() float64 {
	var n, secs float64
	for i := range rateWindows {
		n, secs = n+st.good[i], secs+st.spans[i]
	}
	if secs == 0 {
		return 0
	}
	return n / secs
}

// lowest is the lowest latency (mean + standard error) of recent windows,
// 0 before the first.
func (st *state) lowest() time.Duration {
	var lo time.Duration
	for _, l := range st.lats {
		if l > 0 && (lo == 0 || l < lo) {
			lo = l
		}
	}
	return lo
}

// update is the control law: it folds window w into the state and sets
// st.lim.
//
// An open limit stays open until there is evidence of overload: a queue
// that grows behind the handler (latency and the in-flight count rising
// window after window while goodput does not), the server completing
// requests for callers already gone, or goroutines waiting for a P. Only
// then is it set, to the knee the evidence points at, and from there it
// follows the knee as long as it binds; once it has not bound for a while
// it opens again. Latency alone never sets a limit: it changes with the
// request mix and with dependencies.
func (c *Controller) update(now int64, w window) {
	st := &c.st
	base, overloaded := c.evidence(w)
	draining := st.start < st.drainUntil
	if !draining {
		st.good[st.ri%rateWindows], st.spans[st.ri%rateWindows] = w.rate*w.secs, w.secs
		st.ri++
		if w.lat > 0 {
			st.lats[st.li%latWindows] = w.lat + w.se
			st.li++
		}
	}
	if st.open {
		switch {
		case overloaded:
			st.open = false
			st.base, st.baseAge = base, 0
			st.lim = max(1, c.target())
			// The requests admitted above the new limit drain at the
			// capacity, the last of them one service time later.
			if capacity := st.capacity(); capacity > 0 {
				excess := max(0, float64(w.now)-st.lim) / capacity
				st.drainUntil = now + int64(excess*float64(time.Second)) + int64(base)
			}
		case w.sat && w.rate > 0:
			st.lim *= 2 // demand above an open limit, and no sign of overload
		}
		st.lim = c.schedCut(w, st.lim)
		st.lim = min(st.lim, math.MaxInt32)
		return
	}
	if draining {
		// The requests admitted before the limit was set still run: they
		// measure the queue they were admitted to, not the limit.
		st.lim = c.schedCut(w, st.lim)
		return
	}
	c.updateBaseline(w)
	lim := st.lim
	// Queueing: latency above the baseline by more than the window's noise.
	inflated := float64(w.lat-2*w.se) > inflation*float64(st.base)
	if !w.sat || inflated {
		st.grow = 0
	}
	switch {
	case !w.sat:
		if st.calm++; st.calm >= reopenWindows {
			c.reopen()
			return
		}
	case w.rate == 0:
		// Nobody was served: more requests would not be either.
	case w.inflight < w.lim/gain:
		// A burst met the limit, but requests in flight stay below it:
		// demand, not the limit, sets what runs.
		st.calm, st.grow = 0, 0
	case !inflated:
		st.calm = 0
		st.grow = min(max(2*st.grow, growth), maxGrowth)
		lim = max(lim*(1+st.grow), c.target()) // the limit binds below the knee: grow
	default:
		// Queueing: back to the knee, at most halving per window. If the
		// work only got slower, latency does not follow the limit down and
		// a later window raises the baseline instead.
		st.calm = 0
		lim = max(c.target(), lim/2)
	}
	lim = c.schedCut(w, lim)
	st.lim = min(max(lim, 1), math.MaxInt32)
}

// target is the knee the capacity and the baseline point at, with the
// gain above it.
func (c *Controller) target() float64 {
	return gain * c.st.capacity() * c.st.base.Seconds()
}

// reopen returns the limit to open: nothing bound for reopenWindows.
func (c *Controller) reopen() {
	st := &c.st
	st.open, st.calm, st.rising, st.wasting = true, 0, 0, 0
	st.lim = max(st.lim, openLimit)
	st.cpu.ceil, st.cpu.left = 0, 0
}

// evidence reports whether window w, with those before it, shows
// overload that a limit can cure: a queue growing behind the handler
// (latency and the in-flight count rising window after window while
// goodput does not), or most of the work done for callers already gone.
// A share of requests slower than their clients' patience is not enough:
// some workloads always have it. Goroutines waiting for a P are
// schedCut's.
//
// With the evidence it returns the service time without queueing to set
// the limit from: the latency just before a queue began to grow (the
// lowest of recent windows would be the short requests of a heavy tail,
// which complete first), else the lowest of recent windows.
func (c *Controller) evidence(w window) (base time.Duration, ok bool) {
	st := &c.st
	if w.all > 0 && w.all-w.rate >= wasteShare*w.all {
		st.wasting++
	} else {
		st.wasting = 0
	}
	// A rise or a fall counts only beyond the noise of both windows; a
	// window flat within it keeps the count.
	p := st.prev
	noise := 2 * (w.se + p.se)
	switch {
	case !st.havePrev || w.lat < p.lat-noise:
		st.rising = 0
	case w.lat > p.lat+noise:
		if st.rising == 0 {
			st.riseFrom = p
		}
		st.rising++
	}
	from := st.riseFrom
	growing := st.rising >= riseWindows && w.lat >= riseFactor*from.lat && w.now > from.now
	if growing && from.lat > 0 {
		return from.lat, true
	}
	return st.lowest(), growing || st.wasting >= wasteWindows
}

// schedCut heeds the scheduler latency: how long runnable goroutines
// waited for a P.
//
// An open limit is cut to GOMAXPROCS − 1 (at least 1) once goroutines have
// waited too long for patience windows in a row with at least that many
// requests in flight: CPU-bound handlers then leave a P to refuse with.
// The cut is on trial: once the requests above it have drained, if
// goroutines still wait, the cause is elsewhere (another process, the
// collector), the limit opens again and the scheduler latency cannot cut
// it for a while, longer each time. A limit set on evidence is cut by
// schedCeiling.
func (c *Controller) schedCut(w window, lim float64) float64 {
	st := &c.st
	hot := w.sched > schedKnee
	procs := float64(c.procs())
	if st.trial {
		if float64(w.now) > math.Ceil(w.lim) {
			return lim // the requests admitted before the cut still run
		}
		st.trial = false
		if hot {
			st.muteN = min(max(2*st.muteN, minHold), maxHold)
			st.mute = st.muteN
			c.reopen()
			return max(st.before, openLimit)
		}
	}
	if !st.open {
		return c.schedCeiling(w, lim)
	}
	if st.mute > 0 {
		st.mute--
		return lim
	}
	if hot && float64(w.now) >= procs-1 {
		st.hot++
	} else {
		st.hot = 0
	}
	if c.patience < 0 || st.hot < c.patience {
		return lim
	}
	cut := max(1, procs-1)
	st.hot, st.open, st.trial, st.before = 0, false, true, lim
	st.base, st.baseAge = st.lowest(), 0
	st.cpu.ceil, st.cpu.left = cut, max(st.cpu.hold, minHold)
	return cut
}

// schedCeiling cuts a limit set on evidence when goroutines waited too
// long for a P, and holds it under the cut for a while, doubling the
// hold each time the cut proves necessary again.
//
// Only a limit within twice GOMAXPROCS is cut: far above GOMAXPROCS,
// handlers that hold Ps show as queueing latency long before, and a
// scheduler latency with another cause (another process, the collector)
// must not keep an I/O-bound limit down. The cut never goes below
// GOMAXPROCS − 1, where CPU-bound handlers leave a P free.
func (c *Controller) schedCeiling(w window, lim float64) float64 {
	cp := &c.st.cpu
	procs := float64(c.procs())
	if w.sched > schedKnee && w.lim <= 2*procs {
		ran := w.lim
		if !w.sat {
			ran = min(ran, math.Ceil(w.inflight)+1)
		}
		if cut := max(1, procs-1, min(lim, ran)*0.75); cut < lim {
			if cp.ceil > 0 && cp.left == 0 && cp.sinceCeil <= 2 {
				cp.hold = min(cp.hold*2, maxHold) // the last ceiling was needed
			}
			cp.ceil, cp.left = cut, max(cp.hold, minHold)
			return cut
		}
	}
	if cp.left > 0 {
		cp.left--
		cp.sinceCeil = 0
		return min(lim, cp.ceil)
	}
	cp.sinceCeil++
	if cp.sinceCeil > cp.hold {
		cp.hold = minHold // no cut needed for a whole hold: start over
	}
	return lim
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
	case w.sat && st.havePrev && st.prev.sat && latencyIndependent(st.prev, w):
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
