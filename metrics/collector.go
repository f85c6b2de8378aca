package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// namespace prefixes every metric name.
const namespace = "frontdoor"

// statsCollector is a prometheus.Collector that builds const metrics from a
// middleware's Stats at scrape time. It holds no state of its own, so
// scraping it concurrently is as safe as calling Stats.
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

// descs builds the descriptors of one collector instance: every metric
// gets the const label name=instance.
type descs struct {
	subsystem string
	instance  string
	all       []*prometheus.Desc
}

func newDescs(pkg, subsystem, instance string) *descs {
	if instance == "" {
		panic("metrics: " + pkg + " collector name must not be empty")
	}
	return &descs{subsystem: subsystem, instance: instance}
}

// add returns the descriptor of frontdoor_<subsystem>_<name> with the given
// variable labels, and remembers it for Describe.
func (d *descs) add(name, help string, labels ...string) *prometheus.Desc {
	desc := prometheus.NewDesc(
		prometheus.BuildFQName(namespace, d.subsystem, name),
		help, labels, prometheus.Labels{"name": d.instance},
	)
	d.all = append(d.all, desc)
	return desc
}

func counter(d *prometheus.Desc, v uint64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
}

func gauge(d *prometheus.Desc, v int64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
}
