package ping_test

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/ping"
)

// app answers "app" and counts its calls, so a test sees whether a request
// reached it.
type app struct{ calls int }

func (a *app) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.calls++
	w.Write([]byte("app"))
}

func TestCheckerHandler(t *testing.T) {
	tests := []struct {
		name       string
		state      ping.State
		method     string
		path       string
		wantCode   int
		wantBody   string
		wantNext   bool
		wantClose  bool
		wantRetry  string
		wantLength string
	}{
		{"ready GET", ping.Ready, "GET", "/ping", 200, "ok\n", false, false, "", "3"},
		{"ready HEAD", ping.Ready, "HEAD", "/ping", 200, "", false, false, "", "3"},
		{"live GET", ping.Ready, "GET", "/livez", 200, "ok\n", false, false, "", "3"},
		{"ready POST passes", ping.Ready, "POST", "/ping", 200, "app", true, false, "", ""},
		{"other path passes", ping.Ready, "GET", "/render", 200, "app", true, false, "", ""},
		{"prefix is not the path", ping.Ready, "GET", "/ping/x", 200, "app", true, false, "", ""},
		{"draining ready GET", ping.Draining, "GET", "/ping", 503, "draining\n", false, true, "1", "9"},
		{"draining ready HEAD", ping.Draining, "HEAD", "/ping", 503, "", false, true, "1", "9"},
		{"draining live stays 200", ping.Draining, "GET", "/livez", 200, "ok\n", false, true, "", "3"},
		{"draining other path closes", ping.Draining, "GET", "/render", 200, "app", true, true, "", ""},
		{"maint ready GET", ping.Maint, "GET", "/ping", 503, "draining\n", false, true, "1", "9"},
		{"maint live stays 200", ping.Maint, "GET", "/livez", 200, "ok\n", false, true, "", "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ping.New(ping.Options{ReadyPath: "/ping", LivePath: "/livez"})
			c.SetState(tt.state)
			next := &app{}
			rec := httptest.NewRecorder()
			c.Handler(next).ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))

			if rec.Code != tt.wantCode {
				t.Errorf("code = %d, want %d", rec.Code, tt.wantCode)
			}
			if got := rec.Body.String(); got != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
			if got := next.calls == 1; got != tt.wantNext {
				t.Errorf("next called = %v, want %v", got, tt.wantNext)
			}
			if got := rec.Header().Get("Connection") == "close"; got != tt.wantClose {
				t.Errorf("Connection: close = %v, want %v", got, tt.wantClose)
			}
			if got := rec.Header().Get("Retry-After"); got != tt.wantRetry {
				t.Errorf("Retry-After = %q, want %q", got, tt.wantRetry)
			}
			if got := rec.Header().Get("Content-Length"); got != tt.wantLength {
				t.Errorf("Content-Length = %q, want %q", got, tt.wantLength)
			}
			if !tt.wantNext {
				if got := rec.Header().Get("Content-Type"); got != "text/plain; charset=utf-8" {
					t.Errorf("Content-Type = %q, want text/plain; charset=utf-8", got)
				}
				if got := rec.Header().Get("Cache-Control"); got != "no-store" {
					t.Errorf("Cache-Control = %q, want no-store", got)
				}
			}
		})
	}
}

func TestHandlerShorthand(t *testing.T) {
	next := &app{}
	h := ping.Handler("/ping")(next)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/ping", nil))
	if rec.Code != 200 || rec.Body.String() != "ok\n" || next.calls != 0 {
		t.Errorf("GET /ping = %d %q (next calls %d), want 200 \"ok\\n\" without next", rec.Code, rec.Body, next.calls)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Body.String() != "app" {
		t.Errorf("GET / body = %q, want app", rec.Body)
	}
}

func TestHandlerOffReturnsNext(t *testing.T) {
	next := &app{}
	if got := ping.Handler("")(next); got != http.Handler(next) {
		t.Errorf("Handler(\"\")(next) = %v, want next unchanged", got)
	}
}

func TestOptions(t *testing.T) {
	c := ping.New(ping.Options{ReadyPath: "/ready", Body: "pong", RetryAfter: 1500 * time.Millisecond})
	c.Drain()
	rec := httptest.NewRecorder()
	c.Handler(&app{}).ServeHTTP(rec, httptest.NewRequest("GET", "/ready", nil))
	if got := rec.Header().Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After = %q, want 2 (1.5s rounded up)", got)
	}
	c.SetState(ping.Ready)
	rec = httptest.NewRecorder()
	c.Handler(&app{}).ServeHTTP(rec, httptest.NewRequest("GET", "/ready", nil))
	if rec.Code != 200 || rec.Body.String() != "pong" {
		t.Errorf("after SetState(Ready): %d %q, want 200 \"pong\"", rec.Code, rec.Body)
	}
}

// TestRetryAfterAtMostOneDay checks that any RetryAfter New accepts is
// sent while draining as whole seconds between 1 and one day.
func TestRetryAfterAtMostOneDay(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{24 * time.Hour, "86400"},
		{24*time.Hour + time.Nanosecond, "86400"},
		{1000 * time.Hour, "86400"},
		{math.MaxInt64 - time.Second + 2, "86400"},
		{math.MaxInt64, "86400"},
	}
	for _, tt := range tests {
		c := ping.New(ping.Options{ReadyPath: "/ready", RetryAfter: tt.d})
		c.Drain()
		rec := httptest.NewRecorder()
		c.Handler(&app{}).ServeHTTP(rec, httptest.NewRequest("GET", "/ready", nil))
		if got := rec.Header().Get("Retry-After"); got != tt.want {
			t.Errorf("RetryAfter %v: Retry-After = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// wantPingPanic checks that f panics with a "ping: " message.
func wantPingPanic(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.HasPrefix(s, "ping: ") {
			t.Errorf("panic = %v, want a \"ping: \" message", r)
		}
	}()
	f()
}

func TestNewPanics(t *testing.T) {
	tests := []struct {
		name string
		opts ping.Options
	}{
		{"relative ready path", ping.Options{ReadyPath: "ping"}},
		{"relative live path", ping.Options{LivePath: "livez"}},
		{"same paths", ping.Options{ReadyPath: "/x", LivePath: "/x"}},
		{"negative RetryAfter", ping.Options{RetryAfter: -1}},
		{"negative RetryAfter of a second", ping.Options{RetryAfter: -time.Second}},
		{"DrainDelay -2", ping.Options{DrainDelay: -2}},
		{"negative DrainDelay", ping.Options{DrainDelay: -time.Second}},
		{"ShutdownTimeout -2", ping.Options{ShutdownTimeout: -2}},
		{"negative ShutdownTimeout", ping.Options{ShutdownTimeout: -time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantPingPanic(t, func() { ping.New(tt.opts) })
		})
	}
}

func TestStateAndStats(t *testing.T) {
	c := ping.New(ping.Options{ReadyPath: "/ping", LivePath: "/livez"})
	h := c.Handler(&app{})
	get := func(path string) {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	if c.Draining() {
		t.Fatalf("Draining() = true for a new Checker, want false")
	}
	get("/ping")
	get("/livez")
	get("/other")
	c.Drain()
	if !c.Draining() || c.State() != ping.Draining {
		t.Fatalf("after Drain: Draining() = %v, State() = %v; want true, drain", c.Draining(), c.State())
	}
	get("/ping")
	get("/ping")
	get("/livez")
	want := ping.Stats{Live: 2, Ready: 1, NotReady: 2, State: ping.Draining}
	if got := c.Stats(); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
	for s, want := range map[ping.State]string{ping.Ready: "ready", ping.Draining: "drain", ping.Maint: "maint", 7: "State(invalid)"} {
		if got := s.String(); got != want {
			t.Errorf("State(%d).String() = %q, want %q", s, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("SetState(7) did not panic")
		}
	}()
	c.SetState(7)
}

// TestNextOwnsItsHeaderValues checks that the Connection: close set for
// next while draining belongs to that response alone: a handler that
// rewrites the value in place changes no later response.
func TestNextOwnsItsHeaderValues(t *testing.T) {
	c := ping.New(ping.Options{ReadyPath: "/ping", LivePath: "/livez"})
	c.Drain()
	rewrite := c.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Connection"][0] = "keep-alive"
	}))
	rewrite.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil))
	for _, path := range []string{"/x", "/ping", "/livez"} {
		rec := httptest.NewRecorder()
		c.Handler(&app{}).ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if got := rec.Header().Get("Connection"); got != "close" {
			t.Errorf("GET %s after a handler rewrote its header: Connection = %q, want close", path, got)
		}
	}
}

// TestConnectionCloseOnWire checks that a keep-alive client really gets its
// connection closed once the server drains, so its next request opens a new
// connection (to another instance, behind a load balancer).
func TestConnectionCloseOnWire(t *testing.T) {
	c := ping.New(ping.Options{ReadyPath: "/ping"})
	srv := httptest.NewServer(c.Handler(&app{}))
	defer srv.Close()

	var conns atomic.Int32
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if !i.Reused {
			conns.Add(1)
		}
	}}
	do := func() *http.Response {
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", srv.URL+"/x", nil)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	do()
	do()
	if got := conns.Load(); got != 1 {
		t.Fatalf("new connections while ready = %d, want 1 (keep-alive)", got)
	}
	c.Drain()
	if res := do(); !res.Close {
		t.Errorf("response while draining: Close = false, want true")
	}
	do()
	if got := conns.Load(); got != 2 {
		t.Errorf("new connections after drain = %d, want 2 (connection closed by server)", got)
	}
}
