package main

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/ping"
	"github.com/frontdoor-go/frontdoor/shed"
)

type config struct {
	name    string
	limit   int64
	work    int
	maxBody int64
}

// newRouter composes the frontdoor middlewares in chi. Mux-level r.Use
// middlewares run before routing, so ping answers its paths and shed
// refuses before chi even looks up a route.
func newRouter(chk *ping.Checker, inFlight *inflight.Counter, cfg config) http.Handler {
	shedder := shed.New(shed.Options{Limit: cfg.limit, Counter: inFlight})

	r := chi.NewRouter()
	r.Use(chk.Handler)     // health checks: never shed, never queued
	r.Use(shedder.Handler) // cheapest refusal, before the body is read
	r.Group(func(r chi.Router) {
		r.Use(maxBytes(cfg.maxBody))
		r.Post("/render", renderHandler(cfg.name, cfg.work))
	})
	r.Get("/debug/stats", statsHandler(chk, shedder))
	return r
}

// maxBytes bounds the request body.
func maxBytes(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, n)
			next.ServeHTTP(w, r)
		})
	}
}
