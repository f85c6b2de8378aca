// Package adaptive finds a concurrency limit from what the server actually
// completes, so that shed and concurrency can run without a number from
// the user.
//
// A limit starts open and stays open until there is evidence of overload,
// because a cold server is not overloaded and response time alone is not
// overload: it changes with the request mix and with dependencies. The
// evidence is queueing: goroutines waiting for a P (the Go scheduler's
// latency) while at least GOMAXPROCS − 1 requests run; a queue growing
// behind the handler (a pool, a lock), seen as latency and the in-flight
// count rising window after window while goodput does not; or most of the
// work done for callers that are already gone.
//
// On that evidence the limit is set to the knee it points at: GOMAXPROCS
// − 1 for goroutines waiting for a P (and opened again if that cures
// nothing, as when another process takes the CPU), otherwise a
// bandwidth-delay product, as TCP's BBR does for packets: limit = gain ×
// goodput × the service time without queueing (the lowest latency of
// recent windows), rounded up. From there, while the limit binds, it grows
// while latency stays near that service time and falls back to the knee
// when it does not; a limit that has not bound for a while opens again.
//
// The controller watches windows of a few service times. Per window it
// counts the completions that were still wanted (the client had not gone
// and the deadline had not passed), the mean latency of sampled requests
// and its standard error, the requests in flight, whether the limit bound
// (a refusal or a queued request), the time spent in the caller's queue,
// and the Go scheduler's latency. Zero goodput never raises a limit.
//
// Admission reads the limit with one atomic load. Updates run on the
// completion that closes a window, or on a sampled admission once a
// window is overdue, under TryLock; nothing runs in the background.
package adaptive

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A Controller finds and publishes a concurrency limit. It is safe for
// concurrent use by multiple goroutines.
type Controller struct {
	// Read on every admission.
	limit    atomic.Int64
	shift    atomic.Uint32 // one admission in 1<<shift is sampled
	end      atomic.Int64  // the current window may close from here (ns since epoch)
	epoch    time.Time
	sched    func() time.Duration     // scheduler latency since the last call
	procs    func() int               // runtime.GOMAXPROCS(0)
	inflight func() int64             // the caller's count of requests in flight
	patience int                      // Config.SchedWindows
	debug    func(w window, st state) // tests: called after each window

	_ [64]byte

	// Window sums, written by sampled completions, refusals and waits.
	count   atomic.Int64 // completions still wanted, weighted by sampling
	all     atomic.Int64 // every completion, weighted by sampling
	samples atomic.Int64
	latSum  atomic.Int64 // ns
	latSq   atomic.Int64 // µs², for the standard error of the mean
	sat     atomic.Bool  // the limit bound: a request was refused or queued
	waitSum atomic.Int64 // ns spent in the caller's queue
	waits   atomic.Int64

	mu  sync.Mutex
	st  state
	sig Signals
}

// Signals is what the controller last decided and the measurements behind
// it, as of the last closed window.
type Signals struct {
	Limit int64 // the limit now

	// Open reports that the limit has seen no evidence of overload (or
	// none for a while) and stays high.
	Open bool

	// Goodput is the completions per second of the last window whose
	// client was still there and whose deadline had not passed.
	Goodput float64
	// Capacity is the median Goodput of recent windows.
	Capacity float64
	// Baseline is the estimated service time without queueing.
	Baseline time.Duration
	// Latency is the mean duration of the last window's sampled requests.
	Latency time.Duration
	// SchedLatency is the 99th percentile of the time runnable goroutines
	// waited for a P during the last window.
	SchedLatency time.Duration
	// QueueWait is the mean time requests spent waiting in the caller's
	// queue during the last window (0 without a queue).
	QueueWait time.Duration
	// Windows counts the closed windows.
	Windows uint64
}

// Config is what a Controller needs from its caller.
type Config struct {
	// InFlight returns the caller's count of requests in flight.
	InFlight func() int64

	// SchedWindows is how many windows in a row goroutines must wait for a
	// P before an open limit is cut to GOMAXPROCS − 1: 1 for the limiter
	// closest to CPU-bound handlers, more for one in front of another
	// limiter, which then gets the chance to act first. Zero means 1;
	// negative means never: the limit is then set on the other evidence
	// only.
	SchedWindows int
}

// New returns an open Controller that reads the scheduler latency from the
// Go runtime.
func New(cfg Config) *Controller {
	return newController(cfg, newSchedReader().read)
}

func newController(cfg Config, sched func() time.Duration) *Controller {
	c := &Controller{epoch: time.Now(), sched: sched, procs: gomaxprocs,
		inflight: cfg.InFlight, patience: cfg.SchedWindows}
	if c.patience == 0 {
		c.patience = 1
	}
	c.st = state{lim: openLimit, open: true}
	c.st.cpu.hold = minHold
	c.limit.Store(openLimit)
	c.end.Store(int64(minWindow))
	c.sig = Signals{Limit: openLimit, Open: true}
	return c
}

// Limit returns the current limit: one atomic load.
func (c *Controller) Limit() int64 { return c.limit.Load() }

// Start is called when a request is admitted, with seq the caller's count
// of admitted requests, read after counting this one. It returns the token
// to pass to Done: 0 for the requests that are not sampled, which Done
// then counts for nothing and at no cost. One admission in 1<<shift is
// sampled, and its completion counts for 1<<shift; a count read while
// others add to it samples about as often, which is all the weights need.
func (c *Controller) Start(seq uint64) int64 {
	s := c.shift.Load()
	if seq&(1<<s-1) != 0 {
		return 0
	}
	now := c.now()
	if now >= c.end.Load() && c.mu.TryLock() {
		c.probe(now)
		c.mu.Unlock()
	}
	return (now+1)<<tokenShiftBits | int64(s)
}

// tokenShiftBits low bits of a token hold the sampling shift at admission.
const tokenShiftBits = 5

// Done is called when the request admitted with token completes. ctx is
// the request's context: a request whose context is done (client gone,
// deadline passed) completed for nobody and is not counted as goodput.
// It returns the request's duration if it was sampled, else 0.
func (c *Controller) Done(token int64, ctx context.Context) time.Duration {
	if token == 0 {
		return 0
	}
	now := c.now()
	weight := int64(1) << (token & (1<<tokenShiftBits - 1))
	d := now - (token>>tokenShiftBits - 1)
	c.latSum.Add(d)
	us := d / 1e3
	c.latSq.Add(us * us)
	c.samples.Add(1)
	c.all.Add(weight)
	if ctx == nil || ctx.Err() == nil {
		c.count.Add(weight)
	}
	if now >= c.end.Load() && c.mu.TryLock() {
		c.closeWindow(now)
		c.mu.Unlock()
	}
	return time.Duration(d)
}

// Bound notes that a request found the limit reached: it was refused or queued.
func (c *Controller) Bound() {
	if !c.sat.Load() {
		c.sat.Store(true)
	}
}

// Waited notes that a request waited d in the caller's queue before it was
// admitted, refused or gone: the limit bound.
func (c *Controller) Waited(d time.Duration) {
	c.Bound()
	c.waitSum.Add(int64(d))
	c.waits.Add(1)
}

// Signals returns the last decision and the measurements behind it.
func (c *Controller) Signals() Signals {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sig
	s.Limit = c.limit.Load()
	return s
}

func gomaxprocs() int { return runtime.GOMAXPROCS(0) }

func (c *Controller) now() int64 { return int64(time.Since(c.epoch)) }

// Set makes n (at least 1) the limit now, as if set on evidence; the
// controller goes on from it.
func (c *Controller) Set(n int64) {
	n = max(n, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.lim, c.st.open, c.st.trial, c.st.calm = float64(n), false, false, 0
	c.limit.Store(n)
}
