package metrics

import (
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

// nanosecond is the base unit, seconds, of one observed unit.
const nanosecond = 1e-9
