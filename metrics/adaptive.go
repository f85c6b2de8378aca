package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// adaptiveDescs are the gauges of a limit that finds itself: the signals
// behind it. They are reported only by a middleware whose limit finds
// itself (its Stats.Adaptive is not nil).
type adaptiveDescs struct {
	goodput, baseline, latency, sched *prometheus.Desc
}

func newAdaptiveDescs(d *descs) adaptiveDescs {
	return adaptiveDescs{
		goodput:  d.add("goodput", "Requests per second completed for a client still there, in the last window of the limit that finds itself."),
		baseline: d.add("baseline_seconds", "Estimated duration of a request that waits behind no other, as the limit that finds itself uses it."),
		latency:  d.add("latency_seconds", "Mean duration of the sampled requests of the last window of the limit that finds itself."),
		sched:    d.add("sched_latency_seconds", "99th percentile of the time runnable goroutines waited for a P in the last window."),
	}
}

func (a adaptiveDescs) collect(ch chan<- prometheus.Metric, goodput float64, baseline, latency, sched time.Duration) {
	ch <- prometheus.MustNewConstMetric(a.goodput, prometheus.GaugeValue, goodput)
	ch <- prometheus.MustNewConstMetric(a.baseline, prometheus.GaugeValue, baseline.Seconds())
	ch <- prometheus.MustNewConstMetric(a.latency, prometheus.GaugeValue, latency.Seconds())
	ch <- prometheus.MustNewConstMetric(a.sched, prometheus.GaugeValue, sched.Seconds())
}
