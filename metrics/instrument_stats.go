package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// InstrumenterStats is a snapshot of an Instrumenter's counters.
type InstrumenterStats struct {
	// Classes holds the counts by status class: "1xx" to "5xx", and
	// "other" for codes 600–999. Every class is present.
	Classes map[string]ClassStats
	// Panics counts requests whose handler panicked with any value but
	// http.ErrAbortHandler; they are in no class.
	Panics uint64
	// Aborted counts requests whose handler panicked with
	// http.ErrAbortHandler (the response dropped on purpose, typically
	// because the client went away); they are in no class.
	Aborted uint64
}

// ClassStats are the counts of one status class.
type ClassStats struct {
	Requests uint64    // requests answered with a status of the class
	Bytes    uint64    // body bytes they wrote
	Duration Histogram // their latency, in seconds
}

// Stats returns the Instrumenter's counters. Each counter is read
// atomically; the snapshot is not one consistent instant under load, but
// within a class Requests always equals Duration.Count.
func (in *Instrumenter) Stats() InstrumenterStats {
	st := InstrumenterStats{Classes: make(map[string]ClassStats, numClasses), Panics: in.panics.Load(), Aborted: in.aborted.Load()}
	for i := range in.classes {
		c := &in.classes[i]
		h := c.duration.Snapshot()
		st.Classes[classNames[i]] = ClassStats{Requests: h.Count, Bytes: c.bytes.Load(), Duration: h}
	}
	return st
}

type instrumenterDescs struct {
	all      []*prometheus.Desc
	requests *prometheus.Desc
	duration *prometheus.Desc
	bytes    *prometheus.Desc
	panics   *prometheus.Desc
	aborted  *prometheus.Desc
}

func (in *Instrumenter) initDescs(name string) {
	d := newDescs("instrument", "http", name)
	in.descs = instrumenterDescs{
		requests: d.add("requests_total", "Requests answered, by status class.", "code"),
		duration: d.add("request_duration_seconds", "Time from the request reaching the handler to the handler returning, by status class.", "code"),
		bytes:    d.add("response_bytes_total", "Response body bytes written, by status class.", "code"),
		panics:   d.add("panics_total", "Requests whose handler panicked, counted in no status class."),
		aborted:  d.add("aborted_total", "Requests whose handler aborted the response with http.ErrAbortHandler (client gone), counted in no status class."),
	}
	in.descs.all = d.all
}

// Describe implements prometheus.Collector.
func (in *Instrumenter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range in.descs.all {
		ch <- d
	}
}

// Collect implements prometheus.Collector. The classes 1xx to 5xx are
// always reported, "other" only once it counted a request.
func (in *Instrumenter) Collect(ch chan<- prometheus.Metric) {
	for i := range in.classes {
		c := &in.classes[i]
		h := c.duration.Snapshot()
		if i == 0 && h.Count == 0 {
			continue
		}
		class := classNames[i]
		ch <- counter(in.descs.requests, h.Count, class)
		ch <- constHistogram(in.descs.duration, h, class)
		ch <- counter(in.descs.bytes, c.bytes.Load(), class)
	}
	ch <- counter(in.descs.panics, in.panics.Load())
	ch <- counter(in.descs.aborted, in.aborted.Load())
}
