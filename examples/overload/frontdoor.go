package main

import (
	"net/http"
	"runtime"

	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/shed"
)

// frontdoor returns the frontdoor variant of c's scenario: for the sleep
// scenario (seed 000) synchronous shedding at the backend's limit, for the
// cpu scenario (seed 003) a render slot per core with a short queue.
func frontdoor(c serverConfig, h http.Handler) http.Handler {
	if c.scenario == "sleep" {
		return shed.Limit(c.limit)(h)
	}
	if c.headroom {
		reserveP(c)
	}
	l := concurrency.New(concurrency.Options{
		Limit: c.limit, MaxQueue: c.backlog, QueueTimeout: c.queueTimeout,
	})
	collect = append(collect, func(s *serverStats) {
		st := l.Stats()
		s.Admitted, s.Refused, s.Abandoned = st.Admitted, st.Refused, st.Abandoned
	})
	debugStats = func() any { s := l.Stats(); s.QueueWait.Bounds = nil; return s }
	return l.Handler(h)
}

// reserveP applies the sizing rule of package concurrency: one P more than
// the renders may hold, so that accepting, reading and refusing requests
// never waits behind a render.
func reserveP(c serverConfig) {
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), c.limit+1))
}
