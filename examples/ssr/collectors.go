package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
	"github.com/frontdoor-go/frontdoor/concurrency"
)

// The metrics package has collectors for ping and shed; these two export
// the Stats of bodybuffer and concurrency under the same naming scheme
// (frontdoor_<package>_<what>, const label name, a reason label on
// refusals), reading Stats only when /metrics is scraped.

// statsCollector builds const metrics from a Stats snapshot at scrape time.
type statsCollector struct {
	descs   []*prometheus.Desc
	collect func(ch chan<- prometheus.Metric)
}

func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *statsCollector) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

// newDesc returns the descriptor of frontdoor_<subsystem>_<name> labelled
// name=instance, and remembers it in c for Describe.
func (c *statsCollector) newDesc(subsystem, instance, name, help string, labels ...string) *prometheus.Desc {
	d := prometheus.NewDesc(prometheus.BuildFQName("frontdoor", subsystem, name), help,
		labels, prometheus.Labels{"name": instance})
	c.descs = append(c.descs, d)
	return d
}

func counter(d *prometheus.Desc, v uint64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
}

func gauge(d *prometheus.Desc, v int64) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
}

// histogram turns a per-bucket snapshot (the last count, one past bounds,
// above every bound) into Prometheus's cumulative buckets.
func histogram(d *prometheus.Desc, bounds []float64, counts []uint64, count uint64, sum float64) prometheus.Metric {
	buckets := make(map[float64]uint64, len(bounds))
	var c uint64
	for i, b := range bounds {
		if i < len(counts) {
			c += counts[i]
		}
		buckets[b] = c
	}
	return prometheus.MustNewConstHistogram(d, count, sum, buckets)
}

// newConcurrencyCollector exports l's Stats:
//
//	frontdoor_concurrency_admitted_total          counter    requests passed to next
//	frontdoor_concurrency_refused_total{reason}   counter    503: queue_full, over_budget, timed_out
//	frontdoor_concurrency_abandoned_total         counter    clients that left while queued
//	frontdoor_concurrency_running                 gauge      requests running next now
//	frontdoor_concurrency_queued                  gauge      requests waiting for a slot now
//	frontdoor_concurrency_limit                   gauge      slots
//	frontdoor_concurrency_queue_limit             gauge      queue bound (0: no queue)
//	frontdoor_concurrency_service_time_seconds    gauge      moving average duration of next
//	frontdoor_concurrency_queue_wait_seconds      histogram  time queued, of requests that queued
func newConcurrencyCollector(name string, l *concurrency.Limiter) prometheus.Collector {
	c := &statsCollector{}
	d := func(what, help string, labels ...string) *prometheus.Desc {
		return c.newDesc("concurrency", name, what, help, labels...)
	}
	admitted := d("admitted_total", "Requests the limiter passed to the handler.")
	refused := d("refused_total", "Requests the limiter answered with 503, by reason.", "reason")
	abandoned := d("abandoned_total", "Requests whose client left while they were queued; never run, not answered.")
	running := d("running", "Requests running the handler now.")
	queued := d("queued", "Requests waiting for a slot now.")
	limit := d("limit", "Requests the limiter runs at once (slots).")
	queueLimit := d("queue_limit", "Most requests the limiter queues (0: no queue).")
	service := d("service_time_seconds", "Moving average of the handler's duration.")
	wait := d("queue_wait_seconds", "Time spent queued by requests that queued, whatever their outcome.")
	c.collect = func(ch chan<- prometheus.Metric) {
		st := l.Stats()
		ch <- counter(admitted, st.Admitted)
		ch <- counter(refused, st.QueueFull, "queue_full")
		ch <- counter(refused, st.OverBudget, "over_budget")
		ch <- counter(refused, st.TimedOut, "timed_out")
		ch <- counter(abandoned, st.Abandoned)
		ch <- gauge(running, st.Running)
		ch <- gauge(queued, st.Queued)
		ch <- gauge(limit, st.Limit)
		ch <- gauge(queueLimit, st.MaxQueue)
		ch <- prometheus.MustNewConstMetric(service, prometheus.GaugeValue, st.ServiceTime.Seconds())
		h := st.QueueWait
		ch <- histogram(wait, h.Bounds, h.Counts, h.Count, h.Sum)
	}
	return c
}

// newBodyBufferCollector exports b's Stats:
//
//	frontdoor_bodybuffer_buffered_total          counter    bodies read whole and handed to next
//	frontdoor_bodybuffer_read_bytes_total        counter    body bytes read from clients, any outcome
//	frontdoor_bodybuffer_spilled_total           counter    bodies spooled to a file
//	frontdoor_bodybuffer_passed_total            counter    requests streamed through unbuffered
//	frontdoor_bodybuffer_refused_total{reason}   counter    too_large (413), timed_out (408),
//	                                                        truncated (400), spool_error (500)
//	frontdoor_bodybuffer_aborted_total{reason}   counter    client_gone: no handler, no answer
//	frontdoor_bodybuffer_reading                 gauge      bodies being read now
//	frontdoor_bodybuffer_memory_bytes            gauge      bytes of body buffers held now
//	frontdoor_bodybuffer_memory_peak_bytes       gauge      highest memory_bytes reached
//	frontdoor_bodybuffer_body_size_bytes         histogram  sizes of the bodies handed to next
func newBodyBufferCollector(name string, b *bodybuffer.Buffer) prometheus.Collector {
	c := &statsCollector{}
	d := func(what, help string, labels ...string) *prometheus.Desc {
		return c.newDesc("bodybuffer", name, what, help, labels...)
	}
	buffered := d("buffered_total", "Request bodies read whole and handed to the handler.")
	readBytes := d("read_bytes_total", "Request body bytes read from clients, whatever the outcome.")
	spilled := d("spilled_total", "Request bodies larger than the memory bound, spooled to a temporary file.")
	passed := d("passed_total", "Requests streamed through unbuffered (upgrades, skipped).")
	refused := d("refused_total", "Requests answered with an error before the handler ran, by reason.", "reason")
	aborted := d("aborted_total", "Requests dropped unanswered before the handler ran, by reason.", "reason")
	reading := d("reading", "Request bodies being read now.")
	memory := d("memory_bytes", "Bytes of body buffers held now.")
	memoryPeak := d("memory_peak_bytes", "Highest bytes of body buffers held at once.")
	sizes := d("body_size_bytes", "Sizes of the request bodies handed to the handler.")
	c.collect = func(ch chan<- prometheus.Metric) {
		st := b.Stats()
		ch <- counter(buffered, st.Buffered)
		ch <- counter(readBytes, st.Bytes)
		ch <- counter(spilled, st.Spilled)
		ch <- counter(passed, st.Passed)
		ch <- counter(refused, st.TooLarge, "too_large")
		ch <- counter(refused, st.TimedOut, "timed_out")
		ch <- counter(refused, st.Truncated, "truncated")
		ch <- counter(refused, st.SpoolErrors, "spool_error")
		ch <- counter(aborted, st.ClientGone, "client_gone")
		ch <- gauge(reading, st.Reading)
		ch <- gauge(memory, st.MemHeld)
		ch <- gauge(memoryPeak, st.MemPeak)
		h := st.Sizes
		ch <- histogram(sizes, h.Bounds, h.Counts, h.Count, h.Sum)
	}
	return c
}
