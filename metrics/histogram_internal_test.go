package metrics

import (
	"math"
	"slices"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/internal/histogram"
)

// TestConstHistogram checks that per-bucket counts reach Prometheus as
// cumulative buckets, the count above every bound only in the count.
func TestConstHistogram(t *testing.T) {
	tests := []struct {
		name string
		h    Histogram
		want []uint64
	}{
		{"buckets", Histogram{Bounds: []float64{1, 2, 4}, Counts: []uint64{3, 0, 2, 5}, Count: 10, Sum: 42}, []uint64{3, 3, 5}},
		{"empty", Histogram{Bounds: []float64{1, 2}, Counts: []uint64{0, 0, 0}}, []uint64{0, 0}},
		{"no bounds", Histogram{Bounds: []float64{}, Counts: []uint64{4}, Count: 4, Sum: 1}, []uint64{}},
	}
	d := prometheus.NewDesc("h", "h", nil, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m dto.Metric
			if err := constHistogram(d, tt.h).Write(&m); err != nil {
				t.Fatal(err)
			}
			ph := m.GetHistogram()
			var bounds []float64
			var got []uint64
			for _, b := range ph.GetBucket() {
				bounds = append(bounds, b.GetUpperBound())
				got = append(got, b.GetCumulativeCount())
			}
			if !slices.Equal(bounds, tt.h.Bounds) || !slices.Equal(got, tt.want) {
				t.Errorf("buckets = %v %v, want %v %v", bounds, got, tt.h.Bounds, tt.want)
			}
			if ph.GetSampleCount() != tt.h.Count || ph.GetSampleSum() != tt.h.Sum {
				t.Errorf("count, sum = %d, %v; want %d, %v", ph.GetSampleCount(), ph.GetSampleSum(), tt.h.Count, tt.h.Sum)
			}
		})
	}
}

// TestDurations checks the latency histogram on bounds a Duration
// reaches and on bounds beyond the largest Duration.
func TestDurations(t *testing.T) {
	const s = 1e9 // nanoseconds
	tests := []struct {
		name   string
		bounds []float64
		obs    []int64
		want   []uint64
	}{
		{"on and between bounds", []float64{0.01, 0.1, 1}, []int64{0, 0.01 * s, 0.01*s + 1, 0.1 * s, 2 * s}, []uint64{2, 2, 0, 1}},
		{"negative counts as 0", []float64{1}, []int64{-5}, []uint64{1, 0}},
		{"no bounds", []float64{}, []int64{1, 2}, []uint64{2}},
		{"one beyond", []float64{1, 1e10}, []int64{0, 2 * s, math.MaxInt64}, []uint64{1, 2, 0}},
		{"several beyond", []float64{1, 1e10, 1e11, math.MaxFloat64}, []int64{2 * s, math.MaxInt64}, []uint64{0, 2, 0, 0, 0}},
		{"all beyond", []float64{1e10, 1e11}, []int64{0, math.MaxInt64}, []uint64{2, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := histogram.New(tt.bounds, nanosecond)
			for _, ns := range tt.obs {
				d.Observe(ns)
			}
			h := d.Snapshot()
			if !slices.Equal(h.Bounds, tt.bounds) || !slices.Equal(h.Counts, tt.want) || h.Count != uint64(len(tt.obs)) {
				t.Errorf("snapshot() = bounds %v counts %v count %d, want %v %v %d",
					h.Bounds, h.Counts, h.Count, tt.bounds, tt.want, len(tt.obs))
			}
		})
	}
}

func TestClassOf(t *testing.T) {
	for status, want := range map[int]string{
		0: "2xx", 100: "1xx", 101: "1xx", 200: "2xx", 299: "2xx", 304: "3xx",
		404: "4xx", 503: "5xx", 599: "5xx", 600: "other", 999: "other",
	} {
		if got := classNames[classOf(status)]; got != want {
			t.Errorf("classOf(%d) = %s, want %s", status, got, want)
		}
	}
}
