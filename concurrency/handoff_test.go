package concurrency

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// A request that hands its slot to a waiter yields its P to it, but only
// when GOMAXPROCS leaves a P beyond Limit for the rest of the finished
// request; with no waiter there is nothing to yield to.
func TestHandoffStepsAside(t *testing.T) {
	for _, tc := range []struct {
		name         string
		procs, limit int
		waiter       bool
		want         int64
	}{
		{"spare P, waiter", 3, 2, true, 1},
		{"spare P, nobody waiting", 3, 2, false, 0},
		{"no spare P, waiter", 2, 2, true, 0},
		{"fewer Ps than Limit, waiter", 1, 2, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tc.procs))
			g := newGate()
			l := New(Options{Limit: tc.limit, QueueTimeout: time.Hour})
			var yields atomic.Int64
			l.gosched = func() { yields.Add(1) }
			h := l.Handler(g)
			var dones []chan struct{}
			for range tc.limit {
				_, d := do(h, "/run")
				dones = append(dones, d)
			}
			waitFor(t, func() bool { return l.Stats().Running == int64(tc.limit) })
			if tc.waiter {
				_, d := do(h, "/wait")
				dones = append(dones, d)
				waitFor(t, func() bool { return l.Stats().Queued == 1 })
			}
			for range dones {
				g.release <- struct{}{}
			}
			for _, d := range dones {
				<-d
			}
			if got := yields.Load(); got != tc.want {
				t.Errorf("yielded %d times, want %d", got, tc.want)
			}
			checkIdle(t, l)
		})
	}
}
