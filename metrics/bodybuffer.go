package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
)

// NewBodyBufferCollector returns a collector of b's counters, labelled
// name=name. At each scrape it calls b.Stats once and reports:
//
//	frontdoor_bodybuffer_buffered_total          counter    bodies read whole and handed to next
//	frontdoor_bodybuffer_read_bytes_total        counter    body bytes read from clients, any outcome
//	frontdoor_bodybuffer_spilled_total           counter    bodies spooled to a file
//	frontdoor_bodybuffer_passed_total            counter    requests passed to next untouched
//	frontdoor_bodybuffer_refused_total{reason}   counter    too_large (413), timed_out (408),
//	                                                        canceled (503), truncated (400),
//	                                                        spool_error (500)
//	frontdoor_bodybuffer_aborted_total{reason}   counter    client_gone: no handler, no answer
//	frontdoor_bodybuffer_reading                 gauge      bodies being read now
//	frontdoor_bodybuffer_memory_bytes            gauge      bytes of body buffers held now
//	frontdoor_bodybuffer_memory_peak_bytes       gauge      highest memory_bytes reached
//	frontdoor_bodybuffer_body_size_bytes         histogram  sizes of the bodies handed to next
//
// It adds nothing to the Buffer's request path. It panics if name is
// empty or b is nil. The collector is safe for concurrent use by multiple
// goroutines.
func NewBodyBufferCollector(name string, b *bodybuffer.Buffer) prometheus.Collector {
	if b == nil {
		panic("metrics: NewBodyBufferCollector needs a non-nil *bodybuffer.Buffer")
	}
	d := newDescs("bodybuffer", "bodybuffer", name)
	buffered := d.add("buffered_total", "Request bodies read whole and handed to the handler.")
	readBytes := d.add("read_bytes_total", "Request body bytes read from clients, whatever the outcome.")
	spilled := d.add("spilled_total", "Request bodies larger than the memory bound, spooled to a temporary file.")
	passed := d.add("passed_total", "Requests passed to the handler untouched (upgrades, streams, exempt).")
	refused := d.add("refused_total", "Requests answered with an error before the handler ran, by reason.", "reason")
	aborted := d.add("aborted_total", "Requests dropped unanswered before the handler ran, by reason.", "reason")
	reading := d.add("reading", "Request bodies being read now.")
	memory := d.add("memory_bytes", "Bytes of body buffers held now.")
	memoryPeak := d.add("memory_peak_bytes", "Highest bytes of body buffers held at once.")
	sizes := d.add("body_size_bytes", "Sizes of the request bodies handed to the handler.")
	return &statsCollector{descs: d.all, collect: func(ch chan<- prometheus.Metric) {
		st := b.Stats()
		ch <- counter(buffered, st.Buffered)
		ch <- counter(readBytes, st.Bytes)
		ch <- counter(spilled, st.Spilled)
		ch <- counter(passed, st.Passed)
		ch <- counter(refused, st.TooLarge, "too_large")
		ch <- counter(refused, st.TimedOut, "timed_out")
		ch <- counter(refused, st.Canceled, "canceled")
		ch <- counter(refused, st.Truncated, "truncated")
		ch <- counter(refused, st.SpoolErrors, "spool_error")
		ch <- counter(aborted, st.ClientGone, "client_gone")
		ch <- gauge(reading, st.Reading)
		ch <- gauge(memory, st.MemHeld)
		ch <- gauge(memoryPeak, st.MemPeak)
		ch <- constHistogram(sizes, st.Sizes)
	}}
}
