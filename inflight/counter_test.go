package inflight_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

func TestCounterZeroValue(t *testing.T) {
	var c inflight.Counter
	if got := c.Load(); got != 0 {
		t.Errorf("Load() = %d, want 0", got)
	}
	if got := c.Peak(); got != 0 {
		t.Errorf("Peak() = %d, want 0", got)
	}
	if !c.TryInc(1) {
		t.Fatal("TryInc(1) on a zero Counter = false, want true")
	}
}

func TestTryInc(t *testing.T) {
	tests := []struct {
		name  string
		start int64
		limit int64
		want  bool
		after int64
	}{
		{"below limit", 0, 1, true, 1},
		{"one below limit", 4, 5, true, 5},
		{"at limit", 5, 5, false, 5},
		{"above limit after lowering", 7, 5, false, 7},
		{"zero limit", 0, 0, false, 0},
		{"negative limit", 0, -1, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c inflight.Counter
			for range tt.start {
				c.Inc()
			}
			if got := c.TryInc(tt.limit); got != tt.want {
				t.Errorf("TryInc(%d) at %d = %v, want %v", tt.limit, tt.start, got, tt.want)
			}
			if got := c.Load(); got != tt.after {
				t.Errorf("Load() = %d, want %d", got, tt.after)
			}
		})
	}
}

// TestTryIncBurst starts many goroutines at once; each TryInc that succeeds
// holds its place until all have tried. Exactly limit may succeed.
func TestTryIncBurst(t *testing.T) {
	const goroutines, limit = 200, 50
	var (
		c        inflight.Counter
		start    = make(chan struct{})
		tried    sync.WaitGroup
		admitted atomic.Int64
		done     sync.WaitGroup
	)
	tried.Add(goroutines)
	done.Add(goroutines)
	hold := make(chan struct{})
	for range goroutines {
		go func() {
			defer done.Done()
			<-start
			ok := c.TryInc(limit)
			tried.Done()
			if !ok {
				return
			}
			admitted.Add(1)
			if n := c.Load(); n > limit {
				t.Errorf("Load() = %d inside the limit, want <= %d", n, limit)
			}
			<-hold
			c.Dec()
		}()
	}
	close(start)
	tried.Wait()
	if got := admitted.Load(); got != limit {
		t.Errorf("admitted %d of a burst of %d, want exactly %d", got, goroutines, limit)
	}
	close(hold)
	done.Wait()
	if got := c.Load(); got != 0 {
		t.Errorf("Load() after all Dec = %d, want 0", got)
	}
	if got := c.Peak(); got != limit {
		t.Errorf("Peak() = %d, want %d", got, limit)
	}
}

// TestTryIncStress churns TryInc/Dec from many goroutines and checks the
// count is never observed above the limit.
func TestTryIncStress(t *testing.T) {
	const goroutines, iterations, limit = 64, 2000, 8
	var c inflight.Counter
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range iterations {
				if !c.TryInc(limit) {
					continue
				}
				if n := c.Load(); n > limit {
					t.Errorf("Load() = %d, want <= %d", n, limit)
				}
				c.Dec()
			}
		})
	}
	wg.Wait()
	if got := c.Load(); got != 0 {
		t.Errorf("Load() = %d, want 0", got)
	}
	if got := c.Peak(); got > limit {
		t.Errorf("Peak() = %d, want <= %d", got, limit)
	}
}

func TestDecBelowZeroPanics(t *testing.T) {
	var c inflight.Counter
	defer func() {
		if recover() == nil {
			t.Error("Dec() on 0 did not panic")
		}
		if got := c.Load(); got != 0 {
			t.Errorf("Load() after the panic = %d, want 0", got)
		}
	}()
	c.Dec()
}

func TestPeak(t *testing.T) {
	var c inflight.Counter
	c.Inc()
	c.Inc()
	c.Inc()
	c.Dec()
	c.Dec()
	if got := c.Peak(); got != 3 {
		t.Errorf("Peak() = %d, want 3", got)
	}
	if got := c.ResetPeak(); got != 3 {
		t.Errorf("ResetPeak() = %d, want 3", got)
	}
	if got := c.Peak(); got != 1 {
		t.Errorf("Peak() after ResetPeak = %d, want 1 (the current count)", got)
	}
	c.Inc()
	if got := c.Peak(); got != 2 {
		t.Errorf("Peak() = %d, want 2", got)
	}
}

// TestResetPeakNeverBelowCount resets the peak while another goroutine
// raises the count, round after round: once both are done, the peak is at
// least the count.
func TestResetPeakNeverBelowCount(t *testing.T) {
	const rounds, incs = 20000, 3
	var c inflight.Counter
	// The two sides meet on atomics rather than channels so that the
	// increments run in parallel with ResetPeak, not after it.
	var started, finished atomic.Int64
	var wg sync.WaitGroup
	defer wg.Wait()
	defer started.Store(rounds) // let the incrementer finish after a failure
	wg.Go(func() {
		for i := int64(1); i <= rounds; i++ {
			for started.Load() < i {
				runtime.Gosched()
			}
			for range incs {
				c.Inc()
			}
			finished.Store(i)
		}
	})
	for i := int64(1); i <= rounds; i++ {
		started.Store(i)
		c.ResetPeak()
		for finished.Load() < i {
			runtime.Gosched()
		}
		if n, p := c.Load(), c.Peak(); p < n {
			t.Fatalf("round %d: Peak() = %d with the count at %d after ResetPeak, want >= %d", i, p, n, n)
		}
		for range incs {
			c.Dec()
		}
	}
	if got := c.Load(); got != 0 {
		t.Errorf("Load() = %d, want 0", got)
	}
}
