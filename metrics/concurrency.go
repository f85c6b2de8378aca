package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/priority"
)

// NewConcurrencyCollector returns a collector of l's counters, labelled
// name=name. At each scrape it calls l.Stats once and reports:
//
//	frontdoor_concurrency_admitted_total          counter    requests passed to next
//	frontdoor_concurrency_refused_total{reason}   counter    503s: reason queue_full, over_budget, timed_out or canceled
//	frontdoor_concurrency_abandoned_total         counter    clients that left while queued
//	frontdoor_concurrency_running                 gauge      requests running next now
//	frontdoor_concurrency_queued                  gauge      requests waiting for a slot now
//	frontdoor_concurrency_limit                   gauge      slots
//	frontdoor_concurrency_queue_limit             gauge      queue bound (0: no queue)
//	frontdoor_concurrency_service_time_seconds    gauge      moving average duration of next
//	frontdoor_concurrency_queue_wait_seconds      histogram  time queued, of requests that queued
//
// and, for a Limiter with Options.Priority or Tenant, for each level that
// has had requests, labelled level="sheddable" ... "critical_plus":
//
//	frontdoor_concurrency_level_admitted_total{level}  counter  slots taken by the level
//	frontdoor_concurrency_level_refused_total{level}   counter  503s (and refused Acquire calls) of the level
//
// and, for a Limiter whose limit finds itself, the signals behind it:
//
//	frontdoor_concurrency_goodput                 gauge  completions/s for clients still there
//	frontdoor_concurrency_baseline_seconds        gauge  duration of next when it shares nothing
//	frontdoor_concurrency_latency_seconds         gauge  mean duration of next in the last window
//	frontdoor_concurrency_sched_latency_seconds   gauge  p99 wait of runnable goroutines for a P
//
// It adds nothing to the Limiter's request path. It panics if name is
// empty or l is nil. The collector is safe for concurrent use by multiple
// goroutines.
func NewConcurrencyCollector(name string, l *concurrency.Limiter) prometheus.Collector {
	if l == nil {
		panic("metrics: NewConcurrencyCollector needs a non-nil *concurrency.Limiter")
	}
	d := newDescs("concurrency", "concurrency", name)
	admitted := d.add("admitted_total", "Requests the limiter passed to the handler.")
	refused := d.add("refused_total", "Requests the limiter answered with 503, by reason.", "reason")
	abandoned := d.add("abandoned_total", "Requests whose client left while they were queued; never run, not answered.")
	running := d.add("running", "Requests running the handler now.")
	queued := d.add("queued", "Requests waiting for a slot now.")
	limit := d.add("limit", "Requests the limiter runs at once (slots).")
	queueLimit := d.add("queue_limit", "Most requests the limiter queues (0: no queue).")
	service := d.add("service_time_seconds", "Moving average of the handler's duration.")
	wait := d.add("queue_wait_seconds", "Time spent queued by requests that queued, whatever their outcome.")
	levelAdmitted := d.add("level_admitted_total", "Slots taken by requests of each priority level.", "level")
	levelRefused := d.add("level_refused_total", "Requests of each priority level the limiter refused.", "level")
	adaptive := newAdaptiveDescs(d)
	return &statsCollector{descs: d.all, collect: func(ch chan<- prometheus.Metric) {
		st := l.Stats()
		ch <- counter(admitted, st.Admitted)
		ch <- counter(refused, st.QueueFull, "queue_full")
		ch <- counter(refused, st.OverBudget, "over_budget")
		ch <- counter(refused, st.TimedOut, "timed_out")
		ch <- counter(refused, st.Canceled, "canceled")
		ch <- counter(abandoned, st.Abandoned)
		ch <- gauge(running, st.Running)
		ch <- gauge(queued, st.Queued)
		ch <- gauge(limit, int64(st.Limit))
		ch <- gauge(queueLimit, int64(st.MaxQueue))
		ch <- prometheus.MustNewConstMetric(service, prometheus.GaugeValue, st.ServiceTime.Seconds())
		ch <- constHistogram(wait, st.QueueWait)
		for i, lv := range priority.Levels() {
			if st.Levels == nil {
				break
			}
			ls := st.Levels[i]
			if ls.Admitted+ls.Refused == 0 {
				continue
			}
			ch <- counter(levelAdmitted, ls.Admitted, lv.String())
			ch <- counter(levelRefused, ls.Refused, lv.String())
		}
		if a := st.Adaptive; a != nil {
			adaptive.collect(ch, a.Goodput, a.Baseline, a.Latency, a.SchedLatency)
		}
	}}
}
