package main

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/ping"
	"github.com/frontdoor-go/frontdoor/shed"
)

type config struct {
	sizing
	queueTimeout time.Duration
	maxBody      int64
}

// server is the composed service and the middlewares in it, whose Stats
// /metrics exports.
type server struct {
	http.Handler
	shed     *shed.Shedder
	body     *bodybuffer.Buffer
	renders  *concurrency.Limiter
	registry *prometheus.Registry
}

// newServer composes the frontdoor middlewares in chi, outermost first:
//
//	ping -> shed -> bodybuffer -> concurrency -> Instrument -> app
//
// Mux-level r.Use middlewares run before routing, so ping answers its
// paths and shed refuses before chi even looks up a route. The /render
// group reads the whole body first, then takes a render slot: a slow
// upload never holds one. /metrics is exempt from shed and outside the
// group, so a scrape is never shed or queued, and is not counted in
// inFlight (the load the agent reports).
func newServer(chk *ping.Checker, inFlight *inflight.Counter, cfg config, app http.Handler) *server {
	s := &server{
		shed: shed.New(shed.Options{
			Limit:   int(cfg.limit),
			Counter: inFlight,
			Exempt:  func(r *http.Request) bool { return r.URL.Path == "/metrics" },
		}),
		body: bodybuffer.New(bodybuffer.Options{MaxBytes: cfg.maxBody, Timeout: 30 * time.Second}),
		renders: concurrency.New(concurrency.Options{
			Limit:        cfg.renders,
			MaxQueue:     cfg.maxQueue(),
			QueueTimeout: cfg.queueTimeout,
		}),
		registry: prometheus.NewRegistry(),
	}
	s.registry.MustRegister(
		metrics.NewPingCollector("ssr", chk),
		metrics.NewShedCollector("ssr", s.shed),
		metrics.NewBodyBufferCollector("render", s.body),
		metrics.NewConcurrencyCollector("render", s.renders),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	// Instrument sits next to the app: it times renders and counts their
	// answers, 2xx and 4xx. Refusals never reach it; each middleware's
	// collector counts its own, and they stay allocation-free.
	instrument := metrics.Instrument("render", s.registry)

	r := chi.NewRouter()
	r.Use(chk.Handler)    // health checks: never shed, never queued
	r.Use(s.shed.Handler) // cheapest refusal, before the body is read
	r.Group(func(r chi.Router) {
		r.Use(s.body.Handler)    // whole body, bounded, before a slot is taken
		r.Use(s.renders.Handler) // renders at once, short queue
		r.Use(instrument)
		r.Post("/render", app.ServeHTTP)
	})
	r.Get("/metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}).ServeHTTP)
	s.Handler = r
	return s
}

// load reports the shedder's requests in flight and its limit, for the
// HAProxy agent's weight; read at every check, it follows SetLimit.
func (s *server) load() (inFlight, limit int) {
	st := s.shed.Stats()
	return int(st.InFlight), int(st.Limit)
}
