package main

import (
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/shed"
)

// variant is one way of protecting the scenario's handler.
type variant struct {
	about string // one line for the legend printed before each table

	// wrap returns h behind the variant's protection, configured from s
	// (limit, queue and timeouts, the same for every variant that takes
	// them). It may register counters with s.report.
	wrap func(s *server, h http.Handler) http.Handler

	// size, if not nil, changes the sizing of a CPU-bound scenario before
	// the server starts (limit, GOMAXPROCS); cores is runtime.NumCPU().
	size func(c *serverConfig, cores int)
}

// variants is the table of server variants, by name. Every variant of a
// step runs with the same GOMAXPROCS, limit, queue and timeouts, except
// where its size says otherwise.
//
// To add a variant, add an entry; `-variants name,...` (or adding the
// name to defaultVariants) puts it in the table.
var variants = map[string]variant{
	"none": {
		about: "no protection",
		wrap:  func(_ *server, h http.Handler) http.Handler { return h },
	},
	"frontdoor": {
		about: "the oracle, frontdoor with the hand-tuned limit: I/O shed.Limit(limit); CPU concurrency (limit, queue, queue timeout)",
		wrap:  func(s *server, h http.Handler) http.Handler { return frontdoor(s, h, s.limit) },
	},
	"frontdoor-auto": {
		about: "frontdoor with no number: I/O shed.New(Options{}); CPU concurrency.ReserveP() and concurrency.New(Options{}), from Go's default GOMAXPROCS",
		wrap:  frontdoorAuto,
		size:  func(c *serverConfig, cores int) { c.procs = cores },
	},
	"frontdoor-readme": {
		about: "the README's composition with no number: shed.New(Options{}) in front of concurrency.New(Options{}), after concurrency.ReserveP() (CPU-bound handlers)",
		wrap:  frontdoorReadme,
		size:  func(c *serverConfig, cores int) { c.procs = cores },
	},
	"frontdoor-tight": {
		about: "frontdoor, no headroom: limit = GOMAXPROCS = cores (what a user writes first)",
		wrap:  func(s *server, h http.Handler) http.Handler { return frontdoor(s, h, s.limit) },
		size: func(c *serverConfig, cores int) {
			c.limit, c.procs, c.backlog = cores, cores, 8*cores
		},
	},
	"chi": {
		about: "chi ThrottleBacklog(limit, queue, queue timeout), 503",
		wrap:  chiThrottle,
	},
	"failsafe": {
		about: "failsafe-go adaptivelimiter, NewWithDefaults, failsafehttp.NewHandler (429)",
		wrap:  func(s *server, h http.Handler) http.Handler { return failsafeLimiter(s, h, false) },
	},
	"failsafe-queue": {
		about: "failsafe-go adaptivelimiter, WithQueueing(2, 3), WithMaxWaitTime(queue timeout) (429)",
		wrap:  func(s *server, h http.Handler) http.Handler { return failsafeLimiter(s, h, true) },
	},
	"vegas": {
		about: "go-concurrency-limits DefaultLimiter + default VegasLimit, http.NewServerMiddleware (503)",
		wrap:  func(s *server, h http.Handler) http.Handler { return netflix(s, h, "vegas") },
	},
	"gradient2": {
		about: "go-concurrency-limits DefaultLimiter + default Gradient2Limit, http.NewServerMiddleware (503)",
		wrap:  func(s *server, h http.Handler) http.Handler { return netflix(s, h, "gradient2") },
	},
	"gozero": {
		about: "go-zero core/load NewAdaptiveShedder (CPU threshold 900, rest's default), rest's SheddingHandler logic (503)",
		wrap:  goZero,
	},
	"kratos": {
		about: "kratos aegis ratelimit/bbr NewLimiter (CPU threshold 800), kratos ratelimit.Server logic (429)",
		wrap:  kratosBBR,
	},
}

// Default variant lists: every peer beside the oracle; none (no
// protection) and, where the handler is CPU-bound, the no-headroom row.
var (
	peerVariants = []string{"frontdoor", "frontdoor-auto", "frontdoor-readme", "chi", "failsafe", "failsafe-queue", "vegas", "gradient2", "gozero", "kratos"}
	uploadVars   = []string{"concurrency", "bodybuffer", "frontdoor", "split"}
)

// defaultVariants returns the variants run in scenario sc by default: all
// the peers, the no-headroom row where the handler is CPU-bound, and no
// protection in the full matrix.
func defaultVariants(sc string, full bool) []string {
	if sc == "upload" {
		return slices.Clone(uploadVars)
	}
	var vs []string
	if full {
		vs = append(vs, "none")
	}
	vs = append(vs, peerVariants...)
	if !ioBound(sc) {
		vs = slices.Insert(vs, slices.Index(vs, "frontdoor")+1, "frontdoor-tight")
	}
	return vs
}

// parseVariants splits a comma-separated list of variant names.
func parseVariants(list string) []string {
	var vs []string
	for _, v := range strings.Split(list, ",") {
		if v = strings.TrimSpace(v); v != "" {
			vs = append(vs, v)
		}
	}
	return vs
}

// frontdoor returns frontdoor around h: for an I/O-bound handler
// synchronous shedding at limit (restify's server.first()), for a
// CPU-bound one render slots with the scenario's queue.
func frontdoor(s *server, h http.Handler, limit int) http.Handler {
	if ioBound(s.scenario) {
		return shedded(s, shed.New(shed.Options{Limit: limit}), h)
	}
	return limited(s, concurrency.New(concurrency.Options{
		Limit: limit, MaxQueue: s.backlog, QueueTimeout: s.queueTimeout,
	}), h)
}

// frontdoorAuto returns h behind frontdoor's form without a number: every
// option left at its zero value, so the limit finds itself; for CPU-bound
// handlers ReserveP first gives the front door a P above Go's default.
func frontdoorAuto(s *server, h http.Handler) http.Handler {
	if ioBound(s.scenario) {
		return shedded(s, shed.New(shed.Options{}), h)
	}
	concurrency.ReserveP()
	return limited(s, concurrency.New(concurrency.Options{}), h)
}

// frontdoorReadme returns h behind the composition the README's first
// block gives, with every number left out: a Shedder in front of a
// Limiter (the Shedder's counters are reported: it sees every request).
func frontdoorReadme(s *server, h http.Handler) http.Handler {
	if !ioBound(s.scenario) {
		concurrency.ReserveP()
	}
	inner := concurrency.New(concurrency.Options{}).Handler(h)
	return shedded(s, shed.New(shed.Options{}), inner)
}

// chiThrottle returns chi's ThrottleBacklog with the same limit, queue and
// queue timeout as frontdoor, answering 503.
func chiThrottle(s *server, h http.Handler) http.Handler {
	return middleware.ThrottleWithOpts(middleware.ThrottleOpts{
		Limit: s.limit, BacklogLimit: s.backlog, BacklogTimeout: s.queueTimeout,
		StatusCode: http.StatusServiceUnavailable,
	})(h)
}

// limited returns h behind l and reports l's counters for the server s.
func limited(s *server, l *concurrency.Limiter, h http.Handler) http.Handler {
	s.report(func(st *serverStats) {
		x := l.Stats()
		st.Admitted, st.Refused, st.Abandoned = x.Admitted, x.Refused, x.Abandoned
	})
	s.debug = func() any { x := l.Stats(); x.QueueWait.Bounds = nil; return x }
	return l.Handler(h)
}

// shedded returns h behind sh and reports sh's counters for the server s.
func shedded(s *server, sh *shed.Shedder, h http.Handler) http.Handler {
	s.report(func(st *serverStats) {
		x := sh.Stats()
		st.Admitted, st.Refused = x.Admitted, x.Refused
	})
	s.debug = func() any { return sh.Stats() }
	return sh.Handler(h)
}
