package main

import (
	"testing"
	"time"
)

func TestHistogramQuantile(t *testing.T) {
	var r loadResult
	run := loadResult{Hist: make([]uint64, histBuckets)}
	for i := 1; i <= 100; i++ { // 1ms .. 100ms
		run.Hist[bucketOf(time.Duration(i)*time.Millisecond)]++
	}
	r.add(run)
	r.add(run) // merging two runs keeps the quantiles
	tests := []struct {
		q    float64
		want time.Duration
	}{{0.50, 50 * time.Millisecond}, {0.99, 99 * time.Millisecond}, {1, 100 * time.Millisecond}}
	for _, tt := range tests {
		got := r.quantile(tt.q)
		if got < tt.want || got > tt.want*103/100 {
			t.Errorf("quantile(%v) = %v, want %v within +3%%", tt.q, got, tt.want)
		}
	}
	if got := bucketOf(time.Hour); got != histBuckets-1 {
		t.Errorf("bucketOf(1h) = %d, want the last bucket %d", got, histBuckets-1)
	}
}
