package priority_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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
