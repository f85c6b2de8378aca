package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/priority"
	"github.com/frontdoor-go/frontdoor/shed"
)

// NewShedCollector returns a collector of s's counters, labelled
// name=name. At each scrape it calls s.Stats once and reports:
//
//	frontdoor_shed_admitted_total     counter  requests let through, and successful TryAcquire calls
//	frontdoor_shed_refused_total      counter  requests refused, and failed TryAcquire calls
//	frontdoor_shed_exempt_total       counter  requests passed by Options.Exempt
//	frontdoor_shed_in_flight          gauge    requests in flight now
//	frontdoor_shed_in_flight_peak     gauge    highest in-flight count reached
//	frontdoor_shed_limit              gauge    the current limit
//
// and, for a Shedder with Options.Priority or Tenant, for each level that
// has had requests, labelled level="sheddable" ... "critical_plus":
//
//	frontdoor_shed_level_admitted_total{level}  counter  requests of the level let through
//	frontdoor_shed_level_refused_total{level}   counter  requests of the level refused
//	frontdoor_shed_level_reserved{level}        gauge    places the level leaves free for the levels above
//
// and, for a Shedder whose limit finds itself, the signals behind it:
//
//	frontdoor_shed_goodput                 gauge  completions/s for clients still there
//	frontdoor_shed_baseline_seconds        gauge  duration of a request that waits behind none
//	frontdoor_shed_latency_seconds         gauge  mean duration in the last window
//	frontdoor_shed_sched_latency_seconds   gauge  p99 wait of runnable goroutines for a P
//
// It adds nothing to the Shedder's request path. It panics if name is
// empty or s is nil. The collector is safe for concurrent use by multiple
// goroutines.
func NewShedCollector(name string, s *shed.Shedder) prometheus.Collector {
	if s == nil {
		panic("metrics: NewShedCollector needs a non-nil *shed.Shedder")
	}
	d := newDescs("shed", "shed", name)
	admitted := d.add("admitted_total", "Requests the shedder let through.")
	refused := d.add("refused_total", "Requests the shedder refused with 503 because the limit was reached.")
	exempt := d.add("exempt_total", "Requests passed by the Exempt function, neither counted nor shed.")
	inFlight := d.add("in_flight", "Requests in flight in the shedder's counter.")
	peak := d.add("in_flight_peak", "Highest in-flight count the shedder's counter reached.")
	limit := d.add("limit", "The shedder's current limit on requests in flight.")
	levelAdmitted := d.add("level_admitted_total", "Requests of each priority level the shedder let through.", "level")
	levelRefused := d.add("level_refused_total", "Requests of each priority level the shedder refused.", "level")
	levelReserved := d.add("level_reserved", "Places in flight each priority level leaves free for the levels above it.", "level")
	adaptive := newAdaptiveDescs(d)
	return &statsCollector{descs: d.all, collect: func(ch chan<- prometheus.Metric) {
		st := s.Stats()
		ch <- counter(admitted, st.Admitted)
		ch <- counter(refused, st.Refused)
		ch <- counter(exempt, st.Exempt)
		ch <- gauge(inFlight, st.InFlight)
		ch <- gauge(peak, st.Peak)
		ch <- gauge(limit, int64(st.Limit))
		for i, l := range priority.Levels() {
			if st.Levels == nil {
				break
			}
			ls := st.Levels[i]
			if ls.Admitted+ls.Refused == 0 {
				continue
			}
			ch <- counter(levelAdmitted, ls.Admitted, l.String())
			ch <- counter(levelRefused, ls.Refused, l.String())
			ch <- gauge(levelReserved, int64(ls.Reserved), l.String())
		}
		if a := st.Adaptive; a != nil {
			adaptive.collect(ch, a.Goodput, a.Baseline, a.Latency, a.SchedLatency)
		}
	}}
}

// NewCounterCollector returns a collector of an inflight.Counter, labelled
// name=name, for a counter no Shedder reports (one fed by inflight.Track,
// or shared by several middlewares):
//
//	frontdoor_in_flight        gauge  requests in flight now
//	frontdoor_in_flight_peak   gauge  highest count reached
//
// It panics if name is empty or c is nil. The collector is safe for
// concurrent use by multiple goroutines.
func NewCounterCollector(name string, c *inflight.Counter) prometheus.Collector {
	if c == nil {
		panic("metrics: NewCounterCollector needs a non-nil *inflight.Counter")
	}
	d := newDescs("inflight", "", name)
	inFlight := d.add("in_flight", "Requests in flight in the counter.")
	peak := d.add("in_flight_peak", "Highest count the counter reached.")
	return &statsCollector{descs: d.all, collect: func(ch chan<- prometheus.Metric) {
		ch <- gauge(inFlight, c.Load())
		ch <- gauge(peak, c.Peak())
	}}
}
