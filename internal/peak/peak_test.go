package peak_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/frontdoor-go/frontdoor/internal/peak"
)

func TestRaise(t *testing.T) {
	tests := []struct {
		name     string
		start, v int64
		want     int64
	}{
		{"higher", 3, 5, 5},
		{"equal", 5, 5, 5},
		{"lower", 5, 3, 5},
		{"negative below zero", 0, -1, 0},
		{"from negative", -4, -2, -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p atomic.Int64
			p.Store(tt.start)
			peak.Raise(&p, tt.v)
			if got := p.Load(); got != tt.want {
				t.Errorf("Raise(%d) from %d: got %d, want %d", tt.v, tt.start, got, tt.want)
			}
		})
	}
}

// TestRaiseConcurrent raises one mark from many goroutines at once; it
// ends at the highest value any of them offered.
func TestRaiseConcurrent(t *testing.T) {
	const goroutines, each = 8, 1000
	var p atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				peak.Raise(&p, int64(i*goroutines+g))
			}
		})
	}
	wg.Wait()
	if got, want := p.Load(), int64(goroutines*each-1); got != want {
		t.Errorf("peak = %d, want %d", got, want)
	}
}

func TestRaiseAllocs(t *testing.T) {
	var p atomic.Int64
	if n := testing.AllocsPerRun(100, func() { peak.Raise(&p, 7) }); n != 0 {
		t.Errorf("allocations per Raise = %v, want 0", n)
	}
}
