package metrics_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/shed"
)

// A limit that finds itself adds the gauges of its signals; a fixed limit
// does not.
func TestAdaptiveGauges(t *testing.T) {
	for _, tc := range []struct {
		sub      string
		adaptive prometheus.Collector
		fixed    prometheus.Collector
	}{
		{"shed", metrics.NewShedCollector("a", shed.New(shed.Options{})),
			metrics.NewShedCollector("f", shed.New(shed.Options{Limit: 5}))},
		{"concurrency", metrics.NewConcurrencyCollector("a", concurrency.New(concurrency.Options{})),
			metrics.NewConcurrencyCollector("f", concurrency.New(concurrency.Options{Limit: 5}))},
	} {
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(tc.adaptive, tc.fixed)
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatalf("%s: Gather() error %v", tc.sub, err)
		}
		for _, g := range []string{"goodput", "baseline_seconds", "latency_seconds", "sched_latency_seconds"} {
			name := "frontdoor_" + tc.sub + "_" + g
			n := 0
			for _, mf := range mfs {
				if mf.GetName() == name {
					for _, m := range mf.GetMetric() {
						n++
						if l := m.GetLabel(); len(l) != 1 || l[0].GetValue() != "a" {
							t.Errorf("%s reported for %v, want only the adaptive one", name, l)
						}
					}
				}
			}
			if n != 1 {
				t.Errorf("%s reported %d times, want once", name, n)
			}
		}
	}
}
