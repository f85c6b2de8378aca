package metrics

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Histogram is a snapshot of a histogram with fixed buckets, laid out as
// Prometheus reads it.
type Histogram struct {
	Bounds []float64 // upper bounds of the buckets, inclusive, ascending, in base units
	Counts []uint64  // Counts[i] is the number of observations <= Bounds[i] (cumulative)
	Count  uint64    // all observations, those above the last bound included
	Sum    float64   // sum of all observations, in base units
}

// constHistogram returns h as a Prometheus const histogram.
func constHistogram(d *prometheus.Desc, h Histogram, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(h.Bounds))
	for i, b := range h.Bounds {
		buckets[b] = h.Counts[i]
	}
	return prometheus.MustNewConstHistogram(d, h.Count, h.Sum, buckets, labels...)
}

// durationHistogram counts durations into fixed buckets with one atomic
// add for the bucket and one for the sum; the count is the total of the
// buckets, so a snapshot never has a count that disagrees with them.
type durationHistogram struct {
	bounds  []int64         // upper bounds in nanoseconds, shared
	secs    []float64       // the same bounds in seconds, as configured
	buckets []atomic.Uint64 // len(bounds)+1, not cumulative; the last is +Inf
	sumNs   atomic.Uint64
}

// newDurationHistogram returns a histogram with the bounds secs, which
// are finite, positive and ascending. A bound beyond the largest Duration
// (about 292 years) holds every duration.
func newDurationHistogram(secs []float64) durationHistogram {
	bounds := make([]int64, len(secs))
	for i, s := range secs {
		if ns := s * 1e9; ns < math.MaxInt64 {
			bounds[i] = int64(ns)
		} else {
			bounds[i] = math.MaxInt64 // int64(ns) would overflow
		}
	}
	return durationHistogram{bounds: bounds, secs: secs, buckets: make([]atomic.Uint64, len(bounds)+1)}
}

func (h *durationHistogram) observe(ns int64) {
	i := 0
	for i < len(h.bounds) && ns > h.bounds[i] {
		i++
	}
	h.buckets[i].Add(1)
	h.sumNs.Add(uint64(max(ns, 0)))
}

// snapshot returns the histogram in seconds, with cumulative counts.
func (h *durationHistogram) snapshot() Histogram {
	s := Histogram{Bounds: slices.Clone(h.secs), Counts: make([]uint64, len(h.bounds))}
	for i := range h.buckets {
		s.Count += h.buckets[i].Load()
		if i < len(h.bounds) {
			s.Counts[i] = s.Count
		}
	}
	s.Sum = float64(h.sumNs.Load()) / 1e9
	return s
}

// perBucket returns a Histogram from per-bucket counts, the layout the
// middlewares' Stats use: counts[i] counts observations in
// (bounds[i-1], bounds[i]], and a last count, one past bounds, those above
// every bound. count and sum cover all buckets.
func perBucket(bounds []float64, counts []uint64, count uint64, sum float64) Histogram {
	h := Histogram{Bounds: bounds, Counts: make([]uint64, len(bounds)), Count: count, Sum: sum}
	var c uint64
	for i := range bounds {
		if i < len(counts) {
			c += counts[i]
		}
		h.Counts[i] = c
	}
	return h
}
