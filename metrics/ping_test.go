package metrics_test

import (
	"net/http/httptest"
	"testing"

	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/ping"
)

func TestPingCollector(t *testing.T) {
	p := ping.New(ping.Options{ReadyPath: "/ready", LivePath: "/live"})
	h := p.Handler(okHandler)
	get := func(path string) { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil)) }
	get("/ready")
	get("/live")
	p.Drain()
	get("/ready")
	get("/ready")
	want := `
# HELP frontdoor_ping_draining 1 while the server drains (state drain or maint), else 0.
# TYPE frontdoor_ping_draining gauge
frontdoor_ping_draining{name="web"} 1
# HELP frontdoor_ping_live_total Liveness checks answered (always 200).
# TYPE frontdoor_ping_live_total counter
frontdoor_ping_live_total{name="web"} 1
# HELP frontdoor_ping_not_ready_total Readiness checks answered 503 while draining.
# TYPE frontdoor_ping_not_ready_total counter
frontdoor_ping_not_ready_total{name="web"} 2
# HELP frontdoor_ping_ready_total Readiness checks answered 200.
# TYPE frontdoor_ping_ready_total counter
frontdoor_ping_ready_total{name="web"} 1
# HELP frontdoor_ping_state 1 for the current serving state, 0 for the others.
# TYPE frontdoor_ping_state gauge
frontdoor_ping_state{name="web",state="drain"} 1
frontdoor_ping_state{name="web",state="maint"} 0
frontdoor_ping_state{name="web",state="ready"} 0
`
	c := metrics.NewPingCollector("web", p)
	compareText(t, c, want)
	p.SetState(ping.Ready)
	mfs := collect(t, c)
	if got := findValue(t, mfs, "frontdoor_ping_draining", nil); got != 0 {
		t.Errorf("draining after SetState(Ready) = %v, want 0", got)
	}
	for _, p := range lint(t, c) {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}
