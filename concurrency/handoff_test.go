package concurrency

import (
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
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

// The handoff path does not read GOMAXPROCS from the runtime (which takes
// the scheduler's lock) each time: it reads it once per procsEvery
// handoffs, and follows a change within that many.
func TestHandoffReadsGOMAXPROCSRarely(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 10 * procsEvery
		l := New(Options{Limit: 1, MaxQueue: n, QueueTimeout: time.Hour})
		var reads, yields, procs atomic.Int64
		procs.Store(2) // a P to spare: hand off and yield
		l.maxprocs = func() int { reads.Add(1); return int(procs.Load()) }
		l.gosched = func() { yields.Add(1) }
		l.procs.Store(2)
		var handoffs atomic.Int64
		h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Millisecond)
			if handoffs.Add(1) == n/2 {
				procs.Store(1) // GOMAXPROCS lowered at run time: no spare P
			}
		}))
		var dones []chan struct{}
		for range n {
			_, d := do(h, "/")
			dones = append(dones, d)
		}
		for _, d := range dones {
			<-d
		}
		// n-1 handoffs: half of them before the change.
		if got, most := reads.Load(), int64(n/procsEvery); got > most {
			t.Errorf("GOMAXPROCS read %d times in %d handoffs, want <= %d", got, n-1, most)
		}
		if got, least, most := yields.Load(), int64(n/2-1), int64(n/2-1+procsEvery); got < least || got > most {
			t.Errorf("yielded %d times, want %d..%d (until the change is seen)", got, least, most)
		}
		checkIdle(t, l)
	})
}
