package adaptive

import (
	"math"
	"runtime/metrics"
	"time"
)

// schedReader reads the Go scheduler's latency histogram (how long
// runnable goroutines waited for a P) and returns the 99th percentile of
// the waits since its last read. Reading runtime/metrics is not free: the
// controller reads it once per window.
type schedReader struct {
	s    [1]metrics.Sample
	prev []uint64
}

func newSchedReader() *schedReader {
	r := &schedReader{}
	r.s[0].Name = "/sched/latencies:seconds"
	r.read()
	return r
}

func (r *schedReader) read() time.Duration {
	metrics.Read(r.s[:])
	if r.s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	h := r.s[0].Value.Float64Histogram()
	if len(r.prev) != len(h.Counts) {
		r.prev = make([]uint64, len(h.Counts))
		copy(r.prev, h.Counts)
		return 0
	}
	var total uint64
	for i, n := range h.Counts {
		total += n - r.prev[i]
	}
	var p99 time.Duration
	if total > 0 {
		want := total - total/100 // the rank of the 99th percentile
		var seen uint64
		for i, n := range h.Counts {
			seen += n - r.prev[i]
			if seen >= want {
				// Bucket i spans Buckets[i] to Buckets[i+1]: report its
				// lower bound, the wait at least that many reached.
				if b := h.Buckets[i]; !math.IsInf(b, 0) && b > 0 {
					p99 = time.Duration(b * float64(time.Second))
				}
				break
			}
		}
	}
	copy(r.prev, h.Counts)
	return p99
}
