// Package histogram counts observations into fixed buckets with atomics,
// for the distributions the middlewares keep (queue waits, body sizes,
// latencies), and gives every snapshot the same layout.
package histogram

import (
	"math"
	"slices"
	"sync/atomic"
)

// A Histogram counts int64 observations (nanoseconds, bytes) into fixed
// buckets. Observe is one atomic add for the bucket and one for the sum, so
// it is safe for concurrent use by multiple goroutines.
type Histogram struct {
	bounds []int64   // upper bounds, in observed units
	base   []float64 // the same bounds, in base units
	unit   float64   // base units per observed unit
	counts []atomic.Uint64
	sum    atomic.Int64
}

// New returns a Histogram whose buckets have the upper bounds given in
// base units (seconds, bytes), ascending, for observations made in units
// of unit base units (1e-9 for nanoseconds into seconds, 1 for bytes).
// It panics if the bounds are not finite and strictly increasing.
func New(bounds []float64, unit float64) *Histogram {
	h := &Histogram{base: slices.Clone(bounds), unit: unit, counts: make([]atomic.Uint64, len(bounds)+1)}
	for i, b := range bounds {
		if math.IsNaN(b) || math.IsInf(b, 0) || (i > 0 && b <= bounds[i-1]) {
			panic("histogram: bounds must be finite and strictly increasing")
		}
		h.bounds = append(h.bounds, observed(b, unit))
	}
	return h
}

// observed returns the largest observation, in observed units, at or
// below the bound b: floor(b/unit), taking a quotient within rounding
// error of a whole number as that number (0.001 s is 1e6 ns, not
// 999999.99…), and at most math.MaxInt64.
func observed(b, unit float64) int64 {
	q := b / unit
	n := math.Round(q)
	if math.Abs(q-n) > 1e-9*max(1, math.Abs(q)) {
		n = math.Floor(q)
	}
	if n >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

// Observe counts v, in observed units. A negative v counts as 0.
func (h *Histogram) Observe(v int64) {
	v = max(v, 0)
	i, _ := slices.BinarySearch(h.bounds, v)
	h.counts[i].Add(1)
	h.sum.Add(v)
}

// Snapshot is a copy of a Histogram in base units. Counts are per bucket,
// not cumulative: Counts[i] counts observations v with
// Bounds[i-1] < v <= Bounds[i], and the last element, one past Bounds,
// those above every bound. Count is the sum of Counts.
type Snapshot struct {
	Bounds []float64
	Counts []uint64
	Count  uint64
	Sum    float64
}

// Snapshot returns a copy of h. Under concurrent Observe calls, buckets and
// sum are read one after another, not at one instant.
func (h *Histogram) Snapshot() Snapshot {
	s := Snapshot{Bounds: slices.Clone(h.base), Counts: make([]uint64, len(h.counts))}
	for i := range h.counts {
		s.Counts[i] = h.counts[i].Load()
		s.Count += s.Counts[i]
	}
	s.Sum = float64(h.sum.Load()) * h.unit
	return s
}

// Cumulative returns the counts of observations at or below each bound,
// the layout Prometheus uses; the count above every bound is Count less
// the last of them.
func (s Snapshot) Cumulative() []uint64 {
	c := make([]uint64, len(s.Bounds))
	var n uint64
	for i := range s.Bounds {
		n += s.Counts[i]
		c[i] = n
	}
	return c
}
