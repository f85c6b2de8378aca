package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/ping"
)

// NewPingCollector returns a collector of c's counters and drain state,
// labelled name=name. At each scrape it calls c.Stats once and reports:
//
//	frontdoor_ping_draining             gauge    1 while draining (state drain or maint), else 0
//	frontdoor_ping_state{state}         gauge    1 for the current state (ready, drain, maint), 0 for the others
//	frontdoor_ping_live_total           counter  live path answers
//	frontdoor_ping_ready_total          counter  ready path answered 200
//	frontdoor_ping_not_ready_total      counter  ready path answered 503 (draining)
//
// It panics if name is empty or c is nil. The collector is safe for
// concurrent use by multiple goroutines.
func NewPingCollector(name string, c *ping.Checker) prometheus.Collector {
	if c == nil {
		panic("metrics: NewPingCollector needs a non-nil *ping.Checker")
	}
	d := newDescs("ping", "ping", name)
	draining := d.add("draining", "1 while the server drains (state drain or maint), else 0.")
	state := d.add("state", "1 for the current serving state, 0 for the others.", "state")
	live := d.add("live_total", "Liveness checks answered (always 200).")
	ready := d.add("ready_total", "Readiness checks answered 200.")
	notReady := d.add("not_ready_total", "Readiness checks answered 503 while draining.")
	states := []ping.State{ping.Ready, ping.Draining, ping.Maint}
	return &statsCollector{descs: d.all, collect: func(ch chan<- prometheus.Metric) {
		st := c.Stats()
		ch <- gauge(draining, b2i(st.State != ping.Ready))
		for _, s := range states {
			ch <- gauge(state, b2i(st.State == s), s.String())
		}
		ch <- counter(live, st.Live)
		ch <- counter(ready, st.Ready)
		ch <- counter(notReady, st.NotReady)
	}}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
