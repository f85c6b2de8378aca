// Package metrics provides Prometheus collectors and expvar export for the
// counters every frontdoor middleware keeps, and Instrument, a middleware
// that counts requests by status class, their latency and the bytes
// written.
//
// The middlewares keep their own atomic counters and know nothing of
// Prometheus. The collectors here read those counters (each middleware's
// Stats method) only when the registry is scraped, so exporting them adds
// no work to any request, and a program that does not import metrics pays
// nothing at all.
//
//	s := shed.New(shed.Options{Limit: 50})
//	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
//
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(metrics.NewShedCollector("api", s), in)
//
//	mux := http.NewServeMux()
//	mux.Handle("/", in.Handler(s.Handler(app)))
//	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// Every metric is named frontdoor_<package>_<what>, counters end in _total,
// durations are in seconds and sizes in bytes. Every collector takes a name
// that becomes the const label name="…", so several instances of one
// middleware (one Shedder per route, say) coexist in one registry; two
// collectors of one kind with the same name are a duplicate the registry
// refuses. Refusals that have several causes carry a reason label.
//
// Without Prometheus, Publish exports any Stats snapshot as JSON through
// the standard expvar package (/debug/vars).
package metrics
