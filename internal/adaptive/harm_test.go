package adaptive

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"
)

// Handler shapes where nothing is saturated: a limit that finds itself
// must let every request through (after the first second, when so
// stated), whatever the latencies say.
func TestNoHarm(t *testing.T) {
	const unbounded = 1 << 16 // no pool: nothing to saturate
	for _, tc := range []struct {
		name    string
		rate    float64
		timeout time.Duration
		service func(*rand.Rand) time.Duration
		later   func(*rand.Rand) time.Duration // from second 5, if set
		secs    int
		from    int // refusals counted from this second
	}{
		// 90% take 1 ms, 10% take 2 s: about 20 in flight, no bottleneck.
		{"bimodal", 100, 5 * time.Second, bimodal(time.Millisecond, 2*time.Second, 0.1), nil, 20, 0},
		// A dependency that goes from 1 ms to 20 ms: 10 in flight after.
		{"slower dependency", 500, time.Second, about(time.Millisecond), about(20 * time.Millisecond), 15, 0},
		// Failures answered in microseconds, then a healthy 10 ms handler.
		{"fast failures then healthy", 500, time.Second, about(20 * time.Microsecond), about(10 * time.Millisecond), 15, 0},
		// A 1 s handler at 30 requests per second from cold.
		{"one second handler", 30, 5 * time.Second, about(time.Second), nil, 15, 0},
		// A rolling restart: full traffic (500/s of 50 ms) from the first
		// instant.
		{"rolling restart", 500, time.Second, about(50 * time.Millisecond), nil, 10, 0},
		// The seed's sleep handler, 200 ms, at 900/s.
		{"sleep", 900, 2 * time.Second, about(200 * time.Millisecond), nil, 10, 0},
		// A heavy tail with no pool: the mean is far from the typical
		// request and windows are noisy.
		{"heavy tail", 200, 10 * time.Second, pareto(20*time.Millisecond, 1.5, 5*time.Second), nil, 30, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newTestController(t, quiet)
				s := newSim(t, c, unbounded, unbounded, tc.timeout)
				s.setRate(tc.rate)
				s.setService(tc.service)
				if tc.later != nil {
					go func() {
						time.Sleep(5 * time.Second)
						s.setService(tc.later)
					}()
				}
				s.runAll(time.Duration(tc.secs) * time.Second)
				if n := s.refusals(tc.from, tc.secs); n > 0 {
					t.Errorf("%d refusals, want 0", n)
				}
			})
		})
	}
}

// Every client gives up before the handler answers: goodput is 0 in every
// window, and the limit must not rise on it.
func TestNoGoodputNoRise(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newTestController(t, quiet)
		s := newSim(t, c, 1<<16, 1<<16, 500*time.Millisecond)
		s.setRate(50)
		s.setService(about(2 * time.Second))
		first := c.Limit()
		s.runAll(20 * time.Second)
		if _, hi := s.limitRange(0, 20); hi > first {
			t.Errorf("limit rose to %d from %d with no goodput", hi, first)
		}
	})
}

// 200 requests at the same instant to a cold server that can hold them
// (a 20 ms handler, no pool): none is refused.
func TestColdBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newTestController(t, quiet)
		s := newSim(t, c, 1<<16, 1<<16, time.Second)
		for range 200 {
			s.wg.Add(1)
			go s.serve(20 * time.Millisecond)
		}
		s.finish()
		if n := s.refusals(0, 10); n > 0 {
			t.Errorf("%d of 200 refused, want 0", n)
		}
	})
}

// bimodal returns service times of fast, and of slow with probability p.
func bimodal(fast, slow time.Duration, p float64) func(*rand.Rand) time.Duration {
	return func(r *rand.Rand) time.Duration {
		if r.Float64() < p {
			return slow
		}
		return fast
	}
}

// pareto returns Pareto service times of scale xm and shape alpha, capped.
func pareto(xm time.Duration, alpha float64, cap time.Duration) func(*rand.Rand) time.Duration {
	return func(r *rand.Rand) time.Duration {
		return min(time.Duration(float64(xm)/math.Pow(1-r.Float64(), 1/alpha)), cap)
	}
}

// I/O pools (backend connections): at 1.2x and 3x, from cold, goodput
// near capacity and a latency near that of a limit set by hand to the
// pool. An open limit learns of the pool only from a queue growing behind
// it: at 3x that queue holds several service times of requests before the
// evidence is in, and they drain for about a second more (settle), which
// a limit set by hand never pays.
func TestPool(t *testing.T) {
	for _, p := range []struct {
		size int
		svc  time.Duration
	}{{50, 200 * time.Millisecond}, {37, 130 * time.Millisecond}} {
		capacity := float64(p.size) / p.svc.Seconds()
		for _, tc := range []struct {
			load   float64
			settle int // seconds
		}{{1.2, 0}, {3, 2}} {
			t.Run(fmt.Sprintf("%dx%v/%.1fx", p.size, p.svc, tc.load), func(t *testing.T) {
				fixed := runPool(t, nil, p.size, p.svc, tc.load)
				synctest.Test(t, func(t *testing.T) {
					s := runPool(t, newTestController(t, quiet), p.size, p.svc, tc.load)
					// No completion comes before the first requests are
					// served: the first second is held to the fixed limit's.
					if g, f := s.goodput(0, 1), fixed.goodput(0, 1); tc.settle == 0 && g < 0.9*f {
						t.Errorf("goodput in the first second = %.0f/s, want >= 90%% of the fixed limit's %.0f/s", g, f)
					}
					from := 1 + tc.settle
					if g := s.goodput(from, 10); g < 0.95*capacity {
						t.Errorf("goodput from second %d = %.0f/s, want >= 95%% of %.0f/s", from, g, capacity)
					}
					if got, f := s.p99(from+1, 10), fixed.p99(from+1, 10); got > f*5/4 {
						t.Errorf("p99 from second %d = %v, want <= 1.25 × %v of the fixed limit", from+1, got, f)
					}
				})
			})
		}
	}
}

// runPool runs 10 s of load × the capacity of a pool of size connections
// held for about svc each, behind c, or behind a limit set to the pool if
// c is nil, with clients that give up after a second.
func runPool(t *testing.T, c *Controller, size int, svc time.Duration, load float64) *sim {
	var s *sim
	run := func(t *testing.T) {
		s = newSim(t, c, size, size, time.Second)
		if c == nil {
			s.fixed = int64(size)
		}
		s.setRate(load * float64(size) / svc.Seconds())
		s.setService(about(svc))
		s.runAll(10 * time.Second)
	}
	if c == nil {
		synctest.Test(t, run)
	} else {
		run(t)
	}
	return s
}
