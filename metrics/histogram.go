package metrics

import (
	"math"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/internal/histogram"
)

// Histogram is a snapshot of a distribution with fixed buckets, the layout
// every frontdoor Stats uses: Counts are per bucket, not cumulative.
// Counts[i] counts the observations v with Bounds[i-1] < v <= Bounds[i],
// and the last element, one past Bounds, those above every bound. Count is
// the sum of Counts; Bounds and Sum are in base units (seconds, bytes).
// Cumulative returns the counts at or below each bound, as Prometheus
// reads them.
type Histogram = histogram.Snapshot

// constHistogram returns h as a Prometheus const histogram.
func constHistogram(d *prometheus.Desc, h Histogram, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(h.Bounds))
	for i, c := range h.Cumulative() {
		buckets[h.Bounds[i]] = c
	}
	return prometheus.MustNewConstHistogram(d, h.Count, h.Sum, buckets, labels...)
}

// perBucket returns the Histogram of per-bucket counts laid out as
// Histogram says. It stays only for the collectors that still pass the
// fields one by one; a Stats snapshot goes to constHistogram as it is.
func perBucket(bounds []float64, counts []uint64, count uint64, sum float64) Histogram {
	return Histogram{Bounds: bounds, Counts: counts, Count: count, Sum: sum}
}

// nanosecond is the base unit, seconds, of one observed unit.
const nanosecond = 1e-9

// durations is a latency histogram: observed in nanoseconds, reported in
// seconds, with the bounds as configured.
type durations struct {
	h      *histogram.Histogram
	bounds []float64 // as configured; h has those a Duration can reach
}

// newDurations returns a histogram with the bounds secs, which are finite,
// positive and strictly ascending. Bounds beyond the largest Duration
// (about 292 years) cannot be held in nanoseconds: the first of them holds
// every duration above the bounds before it, the others nothing.
func newDurations(secs []float64) durations {
	n := 0
	for n < len(secs) && secs[n]/nanosecond < math.MaxInt64 {
		n++
	}
	return durations{h: histogram.New(secs[:n], nanosecond), bounds: secs}
}

func (d durations) observe(ns int64) { d.h.Observe(ns) }

// snapshot returns the histogram with every configured bound.
func (d durations) snapshot() Histogram {
	s := d.h.Snapshot()
	if extra := len(d.bounds) - len(s.Bounds); extra > 0 {
		s.Bounds = slices.Clone(d.bounds)
		s.Counts = append(s.Counts, make([]uint64, extra)...)
	}
	return s
}
