package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/ping"
)

func newTestRouter() (*ping.Checker, *inflight.Counter, http.Handler) {
	chk := ping.New(ping.Options{ReadyPath: "/ping", LivePath: "/livez"})
	var c inflight.Counter
	cfg := config{sizing: sizing{renders: 1, queue: 1, limit: 2}, maxBody: 1 << 10}
	return chk, &c, newServer(chk, &c, cfg, renderHandler("t", 1))
}

func do(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	return rec
}

func TestRender(t *testing.T) {
	_, c, h := newTestRouter()
	tests := []struct {
		name     string
		body     string
		wantCode int
		wantBody string
	}{
		{"props", `{"component":"App","props":{"b":[1,true,null],"a":"<x>"}}`, 200,
			`<div data-hypernova-key="App"><dl><dt>a</dt><dd>&lt;x&gt;</dd><dt>b</dt><dd><ul><li>1</li><li>true</li><li></li></ul></dd></dl></div>`},
		{"bad json", `{"component":`, 400, "bad render job"},
		{"no component", `{"props":{}}`, 400, "bad render job: no component"},
		{"too large", `{"component":"App","props":{"x":"` + strings.Repeat("a", 2000) + `"}}`, 413, "request body too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(h, "POST", "/render", tt.body)
			if rec.Code != tt.wantCode || !strings.HasPrefix(rec.Body.String(), tt.wantBody) {
				t.Errorf("POST /render = %d %q, want %d %q...", rec.Code, rec.Body, tt.wantCode, tt.wantBody)
			}
		})
	}
	if n := c.Load(); n != 0 {
		t.Errorf("in flight after the requests = %d, want 0", n)
	}
}

// TestPingBeforeShed checks the composition order: with shed at its limit
// a render is refused, but the health checks are still answered, and they
// are not counted by shed.
func TestPingBeforeShed(t *testing.T) {
	chk, c, h := newTestRouter()
	c.Inc()
	c.Inc() // shed's limit (2) is reached
	if rec := do(h, "POST", "/render", `{"component":"App"}`); rec.Code != 503 {
		t.Errorf("POST /render at the limit = %d, want 503", rec.Code)
	}
	for _, p := range []string{"/ping", "/livez"} {
		if rec := do(h, "GET", p, ""); rec.Code != 200 {
			t.Errorf("GET %s at the limit = %d, want 200", p, rec.Code)
		}
	}
	c.Dec()
	c.Dec()
	if st := chk.Stats(); st.Ready != 1 || st.Live != 1 {
		t.Errorf("ping Stats = %+v, want Ready 1, Live 1", st)
	}

	chk.Drain()
	if rec := do(h, "GET", "/ping", ""); rec.Code != 503 {
		t.Errorf("GET /ping while draining = %d, want 503", rec.Code)
	}
	rec := do(h, "POST", "/render", `{"component":"App"}`)
	if rec.Code != 200 || rec.Header().Get("Connection") != "close" {
		t.Errorf("POST /render while draining = %d Connection=%q, want 200 close", rec.Code, rec.Header().Get("Connection"))
	}
}

// TestAgentLoad checks that the agent's weight follows the shedder: its
// requests in flight and its limit, also after SetLimit.
func TestAgentLoad(t *testing.T) {
	chk := ping.New(ping.Options{ReadyPath: "/ping"})
	var c inflight.Counter
	cfg := config{sizing: sizing{renders: 1, queue: 1, limit: 4}, maxBody: 1 << 10}
	s := newServer(chk, &c, cfg, renderHandler("t", 1))
	agent := ping.NewAgent(ping.AgentOptions{Checker: chk, Load: s.load})
	c.Inc()
	defer c.Dec()
	if got, want := agent.Reply(), "up ready 75%\n"; got != want {
		t.Errorf("one of 4 in flight: Reply() = %q, want %q", got, want)
	}
	s.shed.SetLimit(2)
	if got, want := agent.Reply(), "up ready 50%\n"; got != want {
		t.Errorf("one of 2 in flight after SetLimit(2): Reply() = %q, want %q", got, want)
	}
}
