package typed_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
	"github.com/frontdoor-go/frontdoor/examples/typedproxy/typed"
	"github.com/frontdoor-go/frontdoor/inflight"
)

// echo answers with a description of the request it received.
func echo(w *frame.Response, r *frame.Request) {
	w.ContentType = "text/plain; charset=utf-8"
	var b strings.Builder
	fmt.Fprintf(&b, "v%d %s %s host=%s ct=%s accept=%s id=%s", r.Version, r.Method, r.URL, r.Host, r.ContentType, r.Accept, r.RequestID)
	for _, h := range r.Header {
		fmt.Fprintf(&b, " %s=%s", h.Name, h.Value)
	}
	fmt.Fprintf(&b, " body=%s", r.Body)
	w.Body = []byte(b.String())
}

func TestRoundTrip(t *testing.T) {
	_, addr := upstream(t, echo, nil)
	f := front(t, typed.FrontOptions{Addr: addr, Headers: []string{"authorization"}})
	tests := []struct {
		name, method, target, body string
		header                     map[string]string
		want                       string
	}{
		{"get", "GET", "/hello?x=1", "", nil,
			"v0 GET /hello?x=1 host=example.com ct= accept= id= body="},
		{"versioned post", "POST", "/v2/users", "payload",
			map[string]string{"Content-Type": "application/json", "Accept": "*/*", "X-Request-Id": "r1", "Authorization": "Bearer t", "X-Other": "dropped"},
			"v2 POST /v2/users host=example.com ct=application/json accept=*/* id=r1 Authorization=Bearer t body=payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			f.ServeHTTP(w, r)
			if w.Code != 200 || w.Body.String() != tt.want {
				t.Errorf("ServeHTTP() = %d %q, want 200 %q", w.Code, w.Body, tt.want)
			}
			if got := w.Header().Get("Content-Type"); got != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type = %q, want text/plain; charset=utf-8", got)
			}
			if got, want := w.Header().Get("Content-Length"), fmt.Sprint(len(tt.want)); got != want {
				t.Errorf("Content-Length = %q, want %q", got, want)
			}
		})
	}
	if s := f.Stats(); s.Forwarded != 2 || s.Dials != 1 || s.Open != 1 || s.Idle != 1 {
		t.Errorf("Stats() = %+v, want 2 forwarded over 1 reused connection", s)
	}
}

// TestStatusMapping checks the upstream's status, and what the front
// answers for statuses it cannot forward.
func TestStatusMapping(t *testing.T) {
	tests := []struct {
		status   int32
		body     string
		want     int
		wantBody string
	}{
		{201, "made", 201, "made"},
		{204, "", 204, ""},
		{503, "busy", 503, "busy"},
		{0, "x", 502, "502 bad gateway\n"},
		{99, "x", 502, "502 bad gateway\n"},
		{600, "x", 502, "502 bad gateway\n"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			_, addr := upstream(t, func(w *frame.Response, r *frame.Request) {
				w.Status, w.Body = tt.status, []byte(tt.body)
			}, nil)
			f := front(t, typed.FrontOptions{Addr: addr})
			w := httptest.NewRecorder()
			f.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
			if w.Code != tt.want || w.Body.String() != tt.wantBody {
				t.Errorf("ServeHTTP() = %d %q, want %d %q", w.Code, w.Body, tt.want, tt.wantBody)
			}
		})
	}
}

func TestLargeBodies(t *testing.T) {
	_, addr := upstream(t, func(w *frame.Response, r *frame.Request) {
		switch r.URL {
		case "/echo":
			w.Body = r.Body // valid until the handler returns, which is enough
		case "/huge":
			w.Body = make([]byte, frame.DefaultMaxSize+1)
		}
	}, nil)
	f := front(t, typed.FrontOptions{Addr: addr})
	big := bytes.Repeat([]byte("0123456789"), 300_000) // 3 MB
	tests := []struct {
		name, target string
		body         []byte
		want         int
		wantBody     []byte
	}{
		{"3 MB echoed", "/echo", big, 200, big},
		{"request over the frame limit", "/echo", make([]byte, frame.DefaultMaxSize+1), 413, []byte("413 request too large\n")},
		{"response over the frame limit", "/huge", nil, 500, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", tt.target, bytes.NewReader(tt.body))
			w := httptest.NewRecorder()
			f.ServeHTTP(w, r)
			if w.Code != tt.want || !bytes.Equal(w.Body.Bytes(), tt.wantBody) {
				t.Errorf("ServeHTTP() = %d, %d bytes; want %d, %d bytes", w.Code, w.Body.Len(), tt.want, len(tt.wantBody))
			}
		})
	}
	// Unknown length (chunked upload) over the limit is caught while reading.
	r := httptest.NewRequest("POST", "/echo", io.MultiReader(bytes.NewReader(big), bytes.NewReader(big)))
	r.ContentLength = -1
	w := httptest.NewRecorder()
	f.ServeHTTP(w, r)
	if w.Code != 413 {
		t.Errorf("chunked 6 MB upload = %d, want 413", w.Code)
	}
}

func TestConcurrentClients(t *testing.T) {
	const maxConns, clients, each = 4, 40, 25
	var busy, peak atomic.Int64
	_, addr := upstream(t, func(w *frame.Response, r *frame.Request) {
		n := busy.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		w.Body = append([]byte(nil), r.URL...)
		busy.Add(-1)
	}, nil)
	f := front(t, typed.FrontOptions{Addr: addr, MaxConns: maxConns})
	srv := httptest.NewServer(f)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()

	var wg sync.WaitGroup
	var bad atomic.Int64
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				url := fmt.Sprintf("/c%d/%d", c, i)
				resp, err := client.Get(srv.URL + url)
				if err != nil {
					bad.Add(1)
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || string(b) != url {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := bad.Load(); n != 0 {
		t.Errorf("%d requests failed or got another's answer, want 0", n)
	}
	if p := peak.Load(); p > maxConns {
		t.Errorf("peak upstream concurrency = %d, want <= %d", p, maxConns)
	}
	s := f.Stats()
	if s.Forwarded != clients*each || s.Dials > maxConns || s.Open > maxConns || s.Open != s.Idle {
		t.Errorf("Stats() = %+v, want %d forwarded, <= %d dials, all open idle", s, clients*each, maxConns)
	}
	if n := busy.Load(); n != 0 {
		t.Errorf("upstream busy after the run = %d, want 0", n)
	}
}

// TestComposesWithInflight: the front is a plain http.Handler inside
// frontdoor middlewares; the count returns to 0 on success and on 502.
func TestComposesWithInflight(t *testing.T) {
	var c inflight.Counter
	var seen atomic.Int64
	_, addr := upstream(t, func(w *frame.Response, r *frame.Request) {
		seen.Store(c.Load())
		if r.URL == "/boom" {
			w.Status = 0 // invalid: the front answers 502
		}
	}, nil)
	h := inflight.Track(&c)(front(t, typed.FrontOptions{Addr: addr}))
	for _, tt := range []struct {
		target string
		want   int
	}{{"/", 200}, {"/boom", 502}} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", tt.target, nil))
		if w.Code != tt.want {
			t.Errorf("GET %s = %d, want %d", tt.target, w.Code, tt.want)
		}
		if got := seen.Load(); got != 1 {
			t.Errorf("in flight seen by the upstream = %d, want 1", got)
		}
		if got := c.Load(); got != 0 {
			t.Errorf("in flight after = %d, want 0", got)
		}
	}
}

func TestVersionFromPath(t *testing.T) {
	tests := []struct {
		path string
		want int32
	}{
		{"/v2/users", 2}, {"/v10", 10}, {"/v1/", 1}, {"/", 0}, {"/v", 0}, {"/vx/a", 0},
		{"/v2x/a", 0}, {"/api/v2/a", 0}, {"/v99999999999/a", 0}, {"/v2147483647/", 2147483647},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", tt.path, nil)
		if got := typed.VersionFromPath(r); got != tt.want {
			t.Errorf("VersionFromPath(%q) = %d, want %d", tt.path, got, tt.want)
		}
	}
}

func TestNewFrontPanics(t *testing.T) {
	tests := []struct {
		name string
		o    typed.FrontOptions
	}{
		{"no addr", typed.FrontOptions{}},
		{"negative conns", typed.FrontOptions{Addr: "x:1", MaxConns: -1}},
		{"negative timeout", typed.FrontOptions{Addr: "x:1", Timeout: -1}},
		{"negative frame", typed.FrontOptions{Addr: "x:1", MaxFrameSize: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "typed: ") {
					t.Errorf("NewFront() panic = %v, want a typed: panic", r)
				}
			}()
			typed.NewFront(tt.o)
		})
	}
}
