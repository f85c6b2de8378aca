package histogram

import (
	"slices"
	"testing"
)

func TestObserve(t *testing.T) {
	h := New([]float64{0.001, 0.01, 0.1}, 1e-9) // seconds, observed in nanoseconds
	for _, ns := range []int64{-5, 0, 1e6, 1e6 + 1, 5e6, 1e7, 1e8, 1e8 + 1, 3e9} {
		h.Observe(ns)
	}
	s := h.Snapshot()
	if want := []uint64{3, 3, 1, 2}; !slices.Equal(s.Counts, want) {
		t.Errorf("Counts = %v, want %v", s.Counts, want)
	}
	if s.Count != 9 {
		t.Errorf("Count = %d, want 9", s.Count)
	}
	if want := []uint64{3, 6, 7}; !slices.Equal(s.Cumulative(), want) {
		t.Errorf("Cumulative() = %v, want %v", s.Cumulative(), want)
	}
	if want := (1e6 + 1e6 + 1 + 5e6 + 1e7 + 1e8 + 1e8 + 1 + 3e9) * 1e-9; s.Sum < want*0.999999 || s.Sum > want*1.000001 {
		t.Errorf("Sum = %v, want %v", s.Sum, want)
	}
	if !slices.Equal(s.Bounds, []float64{0.001, 0.01, 0.1}) {
		t.Errorf("Bounds = %v", s.Bounds)
	}
}

func TestNewPanicsOnBadBounds(t *testing.T) {
	for _, b := range [][]float64{{1, 1}, {2, 1}, {1, nan()}, {inf()}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%v) did not panic", b)
				}
			}()
			New(b, 1)
		}()
	}
}

func nan() float64 { z := 0.0; return z / z }
func inf() float64 { z := 0.0; return 1 / z }

func TestBoundsInObservedUnits(t *testing.T) {
	tests := []struct {
		bounds []float64
		unit   float64
		v      int64
		want   []uint64
	}{
		{[]float64{0.001}, 1e-9, 1e6, []uint64{1, 0}},        // 1 ms is 1e6 ns exactly
		{[]float64{0.001}, 1e-9, 1e6 + 1, []uint64{0, 1}},    // just above
		{[]float64{1.5}, 1, 1, []uint64{1, 0}},               // bytes: 1 <= 1.5
		{[]float64{1.5}, 1, 2, []uint64{0, 1}},               // 2 > 1.5
		{[]float64{1e10}, 1e-9, 1<<63 - 1, []uint64{1, 0}},   // beyond the longest Duration
		{[]float64{0.1, 1e10}, 1e-9, 1e9, []uint64{0, 1, 0}}, // a bound past MaxInt64 holds the rest
	}
	for _, tt := range tests {
		h := New(tt.bounds, tt.unit)
		h.Observe(tt.v)
		if got := h.Snapshot().Counts; !slices.Equal(got, tt.want) {
			t.Errorf("New(%v, %v).Observe(%d): Counts = %v, want %v", tt.bounds, tt.unit, tt.v, got, tt.want)
		}
	}
}
