package main

import (
	"encoding/json"
	"net/http"

	"github.com/frontdoor-go/frontdoor/ping"
	"github.com/frontdoor-go/frontdoor/shed"
)

// statsHandler shows the counters of each middleware as JSON, including
// how many health checks reached this instance.
func statsHandler(chk *ping.Checker, s *shed.Shedder) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := chk.Stats()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"ping": map[string]any{"live": p.Live, "ready": p.Ready, "not_ready": p.NotReady, "state": p.State.String()},
			"shed": s.Stats(),
		})
	}
}
