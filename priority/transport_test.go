package priority_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/frontdoor-go/frontdoor/priority"
)

// roundTripFunc records the request it is given.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestTransport(t *testing.T) {
	for _, tt := range []struct {
		name      string
		header    string // Transport.Header
		ctxLevel  *priority.Level
		preset    string // header value the caller set itself
		wantValue string
		wantSame  bool // Base gets the caller's request itself
	}{
		{name: "no level", wantSame: true},
		{name: "level", ctxLevel: ptr(priority.Sheddable), wantValue: "sheddable"},
		{name: "own header name", header: "X-Tier", ctxLevel: ptr(priority.CriticalPlus), wantValue: "critical_plus"},
		{name: "caller's header kept", ctxLevel: ptr(priority.Sheddable), preset: "critical", wantValue: "critical", wantSame: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.header
			if name == "" {
				name = priority.DefaultHeader
			}
			var got *http.Request
			tr := &priority.Transport{Header: tt.header, Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				got = r
				return &http.Response{StatusCode: 200, Request: r}, nil
			})}
			ctx := context.Background()
			if tt.ctxLevel != nil {
				ctx = priority.WithLevel(ctx, *tt.ctxLevel)
			}
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://example.com/", nil)
			if tt.preset != "" {
				req.Header.Set(name, tt.preset)
			}
			before := req.Header.Clone()
			if _, err := tr.RoundTrip(req); err != nil {
				t.Fatal(err)
			}
			if v := got.Header.Get(name); v != tt.wantValue {
				t.Errorf("sent %s: %q, want %q", name, v, tt.wantValue)
			}
			if (got == req) != tt.wantSame {
				t.Errorf("Base got the caller's request: %v, want %v", got == req, tt.wantSame)
			}
			if len(req.Header) != len(before) || req.Header.Get(name) != before.Get(name) {
				t.Errorf("caller's header changed: %v, was %v", req.Header, before)
			}
		})
	}
}

func TestTransportNilHeader(t *testing.T) {
	var got *http.Request
	tr := &priority.Transport{Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = r
		return &http.Response{StatusCode: 200, Request: r}, nil
	})}
	req := (&http.Request{Method: "GET", URL: mustURL(t)}).WithContext(
		priority.WithLevel(context.Background(), priority.SheddablePlus))
	if _, err := tr.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if v := got.Header.Get(priority.DefaultHeader); v != "sheddable_plus" {
		t.Errorf("sent %q, want sheddable_plus", v)
	}
	if req.Header != nil {
		t.Errorf("caller's nil Header became %v", req.Header)
	}
}

// TestTransportWire sends through a real connection to a server that
// classifies with Header: the level crosses the wire.
func TestTransportWire(t *testing.T) {
	classify := priority.Header("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(classify(r).String()))
	}))
	defer srv.Close()
	client := &http.Client{Transport: &priority.Transport{Base: srv.Client().Transport}}
	ctx := priority.WithLevel(context.Background(), priority.SheddablePlus)
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(body); got != "sheddable_plus" {
		t.Errorf("server classified %q, want sheddable_plus", got)
	}
}

func ptr(l priority.Level) *priority.Level { return &l }

func mustURL(t *testing.T) *url.URL {
	t.Helper()
	u, err := url.Parse("http://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// idleRecorder is a Base that records CloseIdleConnections.
type idleRecorder struct {
	http.RoundTripper
	closed int
}

func (r *idleRecorder) CloseIdleConnections() { r.closed++ }

// A Transport passes CloseIdleConnections on to its Base, so that
// http.Client.CloseIdleConnections closes the connections Base keeps.
func TestTransportCloseIdleConnections(t *testing.T) {
	base := &idleRecorder{}
	tr := &priority.Transport{Base: base}
	closer, ok := any(tr).(interface{ CloseIdleConnections() })
	if !ok {
		t.Fatal("Transport has no CloseIdleConnections method")
	}
	closer.CloseIdleConnections()
	(&http.Client{Transport: tr}).CloseIdleConnections()
	if base.closed != 2 {
		t.Errorf("Base.CloseIdleConnections called %d times, want 2", base.closed)
	}
	// A Base without the method is skipped; nil Base means
	// http.DefaultTransport, which has it.
	for _, tr := range []any{&priority.Transport{Base: roundTripFunc(nil)}, &priority.Transport{}} {
		tr.(interface{ CloseIdleConnections() }).CloseIdleConnections()
	}
}

// A redirect to another host (or port) does not carry the level: it is
// sent only to the host and port of the first request of a redirect chain.
func TestTransportRedirectKeepsLevelHome(t *testing.T) {
	for _, tt := range []struct {
		name, from, to string
		want           string // level header the redirect target receives
	}{
		{"same host", "http://api.internal/a", "http://api.internal/b", "critical_plus"},
		{"same host, relative", "http://api.internal/a", "/b", "critical_plus"},
		{"same host, default port spelled out", "http://API.internal/a", "http://api.internal:80/b", "critical_plus"},
		{"another host", "http://api.internal/a", "http://third.party/b", ""},
		{"a subdomain", "http://internal/a", "http://api.internal/b", ""},
		{"another port", "http://api.internal/a", "http://api.internal:8080/b", ""},
		{"another scheme", "http://api.internal/a", "https://api.internal/b", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string // the header of each request sent, in order
			tr := &priority.Transport{Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				got = append(got, r.Header.Get(priority.DefaultHeader))
				resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}
				if len(got) == 1 {
					resp.StatusCode = http.StatusFound
					resp.Header.Set("Location", tt.to)
				}
				return resp, nil
			})}
			ctx := priority.WithLevel(context.Background(), priority.CriticalPlus)
			req, _ := http.NewRequestWithContext(ctx, "GET", tt.from, nil)
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if len(got) != 2 {
				t.Fatalf("%d requests sent, want 2", len(got))
			}
			if got[0] != "critical_plus" {
				t.Errorf("first request sent %q, want critical_plus", got[0])
			}
			if got[1] != tt.want {
				t.Errorf("redirect to %s sent %q, want %q", tt.to, got[1], tt.want)
			}
		})
	}
}

// Over the wire: a server that redirects to another server (another
// port) does not pass the level on.
func TestTransportRedirectWire(t *testing.T) {
	var seen atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Get(priority.DefaultHeader))
	}))
	defer other.Close()
	home := httptest.NewServer(http.RedirectHandler(other.URL+"/elsewhere", http.StatusFound))
	defer home.Close()
	client := &http.Client{Transport: &priority.Transport{}}
	defer client.CloseIdleConnections()
	ctx := priority.WithLevel(context.Background(), priority.CriticalPlus)
	req, _ := http.NewRequestWithContext(ctx, "GET", home.URL, nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if v, _ := seen.Load().(string); v != "" {
		t.Errorf("the other server received %s: %q, want none", priority.DefaultHeader, v)
	}
}
