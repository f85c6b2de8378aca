package adaptive

import (
	"math"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"
)

// I/O-bound: a pool of 50 backend connections, 200 ms each: capacity 250/s.
const (
	poolSize = 50
	poolSvc  = 200 * time.Millisecond
	poolCap  = poolSize * float64(time.Second) / float64(poolSvc)
)

func TestColdStart(t *testing.T) {
	for _, load := range []float64{1.2, 3} {
		synctest.Test(t, func(t *testing.T) {
			c := newController(Config{}, quiet)
			if testing.Verbose() {
				logWindows(t, c)
			}
			s := newSim(t, c, poolSize, poolSize, time.Second)
			s.setRate(load * poolCap)
			s.setService(about(poolSvc))
			s.runAll(15 * time.Second)
			for sec := 5; sec < 15; sec++ {
				if g := s.goodput(sec, sec+1); g < 0.95*poolCap {
					t.Errorf("%.1fx: goodput in second %d = %.0f/s, want >= 95%% of %.0f/s", load, sec, g, poolCap)
				}
			}
		})
	}
}

// newTestController returns a controller that logs its windows under -v.
func newTestController(t *testing.T, sched func() time.Duration) *Controller {
	c := newController(Config{}, sched)
	c.procs = func() int { return 2 } // the same on every machine
	if testing.Verbose() {
		logWindows(t, c)
	}
	return c
}

// The pool loses half its connections (another tenant takes them) and
// gets them back: goodput follows the capacity both ways within 2 s.
func TestCapacityStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSim(t, newTestController(t, quiet), poolSize, poolSize, time.Second)
		s.setRate(2 * poolCap)
		s.setService(about(poolSvc))
		go func() {
			time.Sleep(20 * time.Second)
			s.resize(poolSize / 2) // done as the holders of the slots finish
		}()
		go func() {
			time.Sleep(40 * time.Second)
			s.resize(poolSize)
		}()
		s.runAll(60 * time.Second)
		for _, p := range []struct {
			from, to int
			capacity float64
		}{{10, 20, poolCap}, {22, 40, poolCap / 2}, {42, 60, poolCap}} {
			for sec := p.from; sec < p.to; sec++ {
				if g := s.goodput(sec, sec+1); g < 0.9*p.capacity {
					t.Errorf("goodput in second %d = %.0f/s, want >= 90%% of %.0f/s", sec, g, p.capacity)
				}
			}
		}
	})
}

// Under constant overload the limit holds still: no baseline drift.
func TestNoDrift(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newTestController(t, quiet)
		s := newSim(t, c, poolSize, poolSize, time.Second)
		s.setRate(3 * poolCap)
		s.setService(about(poolSvc))
		s.runAll(70 * time.Second)
		lo, hi := s.limitRange(10, 70)
		mid := float64(lo+hi) / 2
		if float64(hi) > 1.1*mid || float64(lo) < 0.9*mid {
			t.Errorf("limit over a minute of constant load ranged %d..%d, want within ±10%%", lo, hi)
		}
		if base := c.Signals().Baseline; base > poolSvc*11/10 {
			t.Errorf("baseline after a minute of overload = %v, want about %v", base, poolSvc)
		}
	})
}

// A dependency that gets twice as slow without any capacity limit is not
// overload: the limit must let the same load through.
func TestSlowDependency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSim(t, newTestController(t, quiet), 1<<16, 1<<16, 2*time.Second)
		const rate = 300
		s.setRate(rate)
		s.setService(about(100 * time.Millisecond))
		go func() {
			time.Sleep(20 * time.Second)
			s.setService(about(200 * time.Millisecond))
		}()
		s.runAll(50 * time.Second)
		if g := s.goodput(10, 20); g < 0.97*rate {
			t.Errorf("goodput before the slowdown = %.0f/s, want >= 97%% of %d/s", g, rate)
		}
		if g := s.goodput(20, 50); g < 0.95*rate {
			t.Errorf("goodput after the slowdown = %.0f/s, want >= 95%% of %d/s", g, rate)
		}
		if n := s.refusals(25, 50); n > rate/100*25 {
			t.Errorf("%d refusals after the slowdown settled, want under 1%%", n)
		}
	})
}

// After overload ends the limit lets every request of a normal load
// through again.
func TestRecovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSim(t, newTestController(t, quiet), poolSize, poolSize, time.Second)
		s.setRate(3 * poolCap)
		s.setService(about(poolSvc))
		go func() {
			time.Sleep(20 * time.Second)
			s.setRate(0.6 * poolCap)
		}()
		s.runAll(40 * time.Second)
		if n := s.refusals(22, 40); n > 0 {
			t.Errorf("%d refusals at 0.6x after overload ended, want 0", n)
		}
	})
}

// Service times with a heavy tail (Pareto, α = 1.5): the mean is far
// from the typical request, and windows are noisy.
func TestHeavyTail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const xm = 40 * time.Millisecond // mean about 3 × xm, capped at 5 s
		pareto := func(r *rand.Rand) time.Duration {
			return min(time.Duration(float64(xm)/math.Pow(1-r.Float64(), 1/1.5)), 5*time.Second)
		}
		// Measure the mean service time of this distribution.
		r := rand.New(rand.NewPCG(3, 4))
		var sum time.Duration
		for range 100000 {
			sum += pareto(r)
		}
		mean := sum / 100000
		capacity := poolSize / mean.Seconds()
		s := newSim(t, newTestController(t, quiet), poolSize, poolSize, 10*time.Second)
		s.setRate(2 * capacity)
		s.setService(pareto)
		s.runAll(60 * time.Second)
		if g := s.goodput(10, 60); g < 0.9*capacity {
			t.Errorf("goodput = %.0f/s, want >= 90%% of %.0f/s (mean service %v)", g, capacity, mean)
		}
	})
}

// CPU-bound: K cores, each serves one request at a time for about 8 ms.
// A request admitted beyond K waits for a core, like a goroutine waiting
// for a P, and the scheduler latency says so: that is the signal the
// controller must heed, with a queue in front as in concurrency.
func TestCPUBound(t *testing.T) {
	const (
		cores = 2
		svc   = 8 * time.Millisecond
	)
	capacity := cores / svc.Seconds()
	for _, load := range []float64{0.5, 1.2, 3} {
		synctest.Test(t, func(t *testing.T) {
			var s *sim
			sched := func() time.Duration {
				if s.in.ResetPeak() > cores {
					return 4 * time.Millisecond // runnable goroutines wait for a P
				}
				return quiet()
			}
			c := newTestController(t, sched)
			c.procs = func() int { return cores + 1 } // one P reserved
			s = newSim(t, c, cores, cores, 100*time.Millisecond)
			s.queue = 50 * time.Millisecond
			s.setRate(load * capacity)
			s.setService(about(svc))
			s.runAll(20 * time.Second)
			want := min(load, 1) * capacity * 0.9
			if load < 1 {
				if n := s.refusals(2, 20); n > 0 {
					t.Errorf("%.1fx: %d refusals, want 0", load, n)
				}
			}
			if g := s.goodput(2, 20); g < want {
				t.Errorf("%.1fx: goodput = %.0f/s, want >= %.0f/s", load, g, want)
			}
			if f := s.above(cores, 2, 20); f > 0.1 {
				t.Errorf("%.1fx: limit above %d cores %.0f%% of the time, want <= 10%%", load, cores, 100*f)
			}
		})
	}
}

// CPU-bound on two cores, until another process takes most of one of
// them for a while: the requests in service share 1.15 cores then. gain ×
// capacity × baseline is about 1.4: a limit rounded to the nearest
// integer would settle at 1, a tenth below what the cores can do.
func TestFractionalCore(t *testing.T) {
	const svc = 8 * time.Millisecond
	full := 2 / svc.Seconds()
	shared := 1.15 / svc.Seconds()
	synctest.Test(t, func(t *testing.T) {
		var s *sim
		sched := func() time.Duration {
			if s.in.ResetPeak() > 2 {
				return 4 * time.Millisecond // runnable goroutines wait for a P
			}
			return quiet()
		}
		c := newTestController(t, sched)
		c.procs = func() int { return 3 } // one P reserved
		s = newSim(t, c, 8, 8, 100*time.Millisecond)
		s.cores.Store(2.0)
		s.queue = 50 * time.Millisecond
		s.setRate(1.2 * full)
		s.setService(about(svc))
		go func() {
			time.Sleep(10 * time.Second)
			s.cores.Store(1.15)
			time.Sleep(10 * time.Second)
			s.cores.Store(2.0)
		}()
		s.runAll(30 * time.Second)
		for _, p := range []struct {
			from, to int
			capacity float64
		}{{2, 10, full}, {12, 20, shared}, {22, 30, full}} {
			if g := s.goodput(p.from, p.to); g < 0.95*p.capacity {
				t.Errorf("goodput in seconds %d-%d = %.0f/s, want >= 95%% of %.0f/s", p.from, p.to, g, p.capacity)
			}
		}
	})
}

// A scheduler latency that cutting the limit does not cure (another
// process takes the CPU) must not drive the limit down.
func TestSchedLatencyElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		busy := func() time.Duration { return 5 * time.Millisecond }
		c := newTestController(t, busy)
		c.procs = func() int { return 2 }
		s := newSim(t, c, poolSize, poolSize, time.Second)
		s.setRate(2 * poolCap)
		s.setService(about(poolSvc))
		s.runAll(60 * time.Second)
		if g := s.goodput(5, 60); g < 0.9*poolCap {
			t.Errorf("goodput = %.0f/s, want >= 90%% of %.0f/s", g, poolCap)
		}
	})
}
