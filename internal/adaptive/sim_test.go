package adaptive

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
)

// A sim is a server model in virtual time: requests admitted by the
// controller wait for one of the slots of a pool (backend connections, or
// cores for CPU-bound work) and hold it for their service time. Arrivals
// are open-loop Poisson; each client gives up after timeout.
type sim struct {
	t       *testing.T
	c       *Controller
	in      inflight.Counter
	pool    chan struct{}
	rnd     *rand.Rand
	rate    atomic.Value // float64 arrivals per second
	service atomic.Value // func(*rand.Rand) time.Duration
	timeout time.Duration
	seq     atomic.Uint64 // admissions

	mu      sync.Mutex
	good    map[int]int // completions in time, per second of virtual time
	refused map[int]int
	limits  map[int]int64
	lats    map[int][]time.Duration // of the completions in time, from arrival, per second
	start   time.Time
	wg      sync.WaitGroup
	held    []struct{} // pool slots taken away by step

	// cores, if set (float64), makes the requests in service share that
	// many cores, as the scheduler shares them among threads: each
	// progresses at min(1, cores / requests in service).
	cores   atomic.Value
	running atomic.Int64

	// queue, if positive, is how long a request may wait for the limit,
	// as in the concurrency package; 0 refuses at once, as shed does.
	queue time.Duration
	// fixed, if positive, is a limit set by hand: c is not consulted.
	fixed int64
	qmu   sync.Mutex
	q     []*qwaiter
}

type qwaiter struct {
	ready   chan struct{}
	granted bool
}

// newSim returns a sim with a pool of size slots of which capacity are
// usable at first.
func newSim(t *testing.T, c *Controller, size, capacity int, timeout time.Duration) *sim {
	s := &sim{
		t: t, c: c, pool: make(chan struct{}, size), timeout: timeout,
		rnd:  rand.New(rand.NewPCG(1, 2)),
		good: map[int]int{}, lats: map[int][]time.Duration{}, refused: map[int]int{}, limits: map[int]int64{},
		start: time.Now(),
	}
	if c != nil {
		c.inflight = s.in.Load
	}
	for range size - capacity {
		s.pool <- struct{}{}
	}
	s.held = make([]struct{}, size-capacity)
	return s
}

func (s *sim) setRate(r float64)                           { s.rate.Store(r) }
func (s *sim) setService(f func(*rand.Rand) time.Duration) { s.service.Store(f) }

// about returns service times spread uniformly over d ± 10%: no real
// dependency answers in exactly the same time twice.
func about(d time.Duration) func(*rand.Rand) time.Duration {
	return func(r *rand.Rand) time.Duration {
		return time.Duration(float64(d) * (0.9 + 0.2*r.Float64()))
	}
}

// resize makes n slots of the pool usable, taking slots away (as their
// holders release them) or giving them back.
func (s *sim) resize(n int) {
	usable := cap(s.pool) - len(s.held)
	for ; usable > n; usable-- {
		s.pool <- struct{}{}
		s.held = append(s.held, struct{}{})
	}
	for ; usable < n; usable++ {
		<-s.pool
		s.held = s.held[1:]
	}
}

func (s *sim) sec() int { return int(time.Since(s.start) / time.Second) }

// run generates load until d has passed, recording the limit every 100 ms.
func (s *sim) run(d time.Duration) {
	stop := time.Now().Add(d)
	next := time.Now()
	nextRecord := time.Now()
	for time.Now().Before(stop) {
		r := s.rate.Load().(float64)
		next = next.Add(time.Duration(s.rnd.ExpFloat64() / r * float64(time.Second)))
		time.Sleep(time.Until(next))
		if !time.Now().Before(nextRecord) {
			s.mu.Lock()
			s.limits[int(time.Since(s.start)/(100*time.Millisecond))] = s.limit()
			s.mu.Unlock()
			nextRecord = nextRecord.Add(100 * time.Millisecond)
		}
		svc := s.service.Load().(func(*rand.Rand) time.Duration)(s.rnd)
		s.wg.Add(1)
		go s.serve(svc)
	}
}

// admit takes a place under the limit, waiting in the queue if there is
// one.
func (s *sim) admit() bool {
	if s.in.TryInc(s.limit()) {
		return true
	}
	if s.queue == 0 {
		if s.fixed == 0 {
			s.c.Bound()
		}
		return false
	}
	start := time.Now()
	w := &qwaiter{ready: make(chan struct{})}
	s.qmu.Lock()
	s.q = append(s.q, w)
	s.grantLocked()
	s.qmu.Unlock()
	t := time.NewTimer(s.queue)
	select {
	case <-w.ready:
	case <-t.C:
	}
	t.Stop()
	s.qmu.Lock()
	if !w.granted {
		for i, x := range s.q {
			if x == w {
				s.q = append(s.q[:i], s.q[i+1:]...)
				break
			}
		}
	}
	s.qmu.Unlock()
	if s.fixed == 0 {
		s.c.Waited(time.Since(start))
	}
	return w.granted
}

func (s *sim) grantLocked() {
	for len(s.q) > 0 && s.in.TryInc(s.limit()) {
		w := s.q[0]
		s.q = s.q[1:]
		w.granted = true
		close(w.ready)
	}
}

func (s *sim) serve(svc time.Duration) {
	defer s.wg.Done()
	arrived := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if !s.admit() {
		s.mu.Lock()
		s.refused[s.sec()]++
		s.mu.Unlock()
		return
	}
	var tok int64
	if s.fixed == 0 {
		tok = s.c.Start(s.seq.Add(1))
	}
	s.pool <- struct{}{}
	if s.cores.Load() == nil {
		time.Sleep(svc)
	} else {
		s.share(svc)
	}
	<-s.pool
	s.in.Dec()
	s.qmu.Lock()
	s.grantLocked()
	s.qmu.Unlock()
	if ctx.Err() == nil {
		s.mu.Lock()
		s.good[s.sec()]++
		s.lats[s.sec()] = append(s.lats[s.sec()], time.Since(arrived))
		s.mu.Unlock()
	}
	if s.fixed == 0 {
		s.c.Done(tok, ctx)
	}
}

// limit returns the limit of the moment.
func (s *sim) limit() int64 {
	if s.fixed > 0 {
		return s.fixed
	}
	return s.c.Limit()
}

// share serves a request of service time svc on the shared cores, in
// ticks of a tenth of a millisecond.
func (s *sim) share(svc time.Duration) {
	const tick = 100 * time.Microsecond
	n := s.running.Add(1)
	defer s.running.Add(-1)
	for done := time.Duration(0); done < svc; n = s.running.Load() {
		time.Sleep(tick)
		done += time.Duration(float64(tick) * min(1, s.cores.Load().(float64)/float64(n)))
	}
}

// runAll generates load for d, waits for every request to complete and,
// under -v, logs the trace.
func (s *sim) runAll(d time.Duration) {
	s.run(d)
	s.finish()
	if testing.Verbose() {
		s.trace(int(d / time.Second))
	}
}

// finish waits for every request to complete.
func (s *sim) finish() { s.wg.Wait() }

// goodput returns the completions in time per second over seconds [from, to).
func (s *sim) goodput(from, to int) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := from; i < to; i++ {
		n += s.good[i]
	}
	return float64(n) / float64(to-from)
}

// p99 returns the 99th percentile latency of the completions in time
// over seconds [from, to).
func (s *sim) p99(from, to int) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var l []time.Duration
	for i := from; i < to; i++ {
		l = append(l, s.lats[i]...)
	}
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	return l[len(l)*99/100]
}

func (s *sim) refusals(from, to int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := from; i < to; i++ {
		n += s.refused[i]
	}
	return n
}

// limitRange returns the lowest and highest limit recorded over seconds
// [from, to).
func (s *sim) limitRange(from, to int) (lo, hi int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lo = math.MaxInt64
	for i := from * 10; i < to*10; i++ {
		if l, ok := s.limits[i]; ok {
			lo, hi = min(lo, l), max(hi, l)
		}
	}
	return lo, hi
}

// trace logs goodput, refusals and limit per second, for -v runs.
func (s *sim) trace(to int) {
	for i := range to {
		lo, hi := s.limitRange(i, i+1)
		s.t.Logf("t=%2ds goodput %4.0f/s refused %4d limit %d..%d", i, s.goodput(i, i+1), s.refusals(i, i+1), lo, hi)
	}
	if s.fixed == 0 {
		s.t.Logf("signals %+v", s.c.Signals())
	}
}

// above returns the fraction of the recorded limits over seconds
// [from, to) that were above n.
func (s *sim) above(n int64, from, to int) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, all := 0, 0
	for i := from * 10; i < to*10; i++ {
		if l, ok := s.limits[i]; ok {
			all++
			if l > n {
				k++
			}
		}
	}
	return float64(k) / float64(max(all, 1))
}

// quiet is the scheduler latency of a server with a P to spare.
func quiet() time.Duration { return 20 * time.Microsecond }

// logWindows logs every window's measurements and decision, for -v runs.
func logWindows(t *testing.T, c *Controller) {
	start := time.Now()
	c.debug = func(w window, st state) {
		t.Logf("%6.2fs lim %6.1f->%6.1f rate %5.0f all %5.0f cap %5.0f lat %5.1fms base %5.1fms n %5.1f/%d sat %v sched %v se %5.1fms open %v rise %d",
			time.Since(start).Seconds(), w.lim, st.lim, w.rate, w.all, st.capacity(), ms(w.lat), ms(st.base), w.inflight, w.now, w.sat, w.sched, ms(w.se), st.open, st.rising)
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
