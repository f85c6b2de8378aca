package priority

import (
	"net/http"
	"net/url"
	"strings"
)

// Transport is an http.RoundTripper that sends the level of each outgoing
// request's context (see WithLevel) in a header, so that the next service,
// classifying with Header, refuses it in the same order as this one. The
// zero value is ready to use: http.DefaultTransport and DefaultHeader.
//
//	client := &http.Client{Transport: &priority.Transport{}}
//	ctx := priority.WithLevel(r.Context(), priority.Sheddable)
//	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
//	client.Do(req) // sent with "Frontdoor-Priority: sheddable"
//
// A request whose context carries no level, or that already has the
// header, is passed to Base unchanged. Otherwise Base gets a clone that
// carries the header: the caller's request is never modified.
//
// The level is the caller's own vocabulary, for the service it calls: it
// is sent only to the host and port of the request the caller made. When
// http.Client follows a redirect, the redirected request carries it only
// if it goes to the same host and port (the host compared without regard
// to case, an absent port read as the scheme's default) as the first
// request of the chain; a redirect to any other host, a subdomain
// included, or to another port (from http to https, say), is sent
// without it. A
// redirected request whose chain cannot be followed back to its first
// request (a Base that leaves Response.Request nil) is sent without it
// too.
//
// CloseIdleConnections is passed on to Base, so that
// http.Client.CloseIdleConnections reaches the connections Base keeps. A
// Transport is safe for concurrent use by multiple goroutines.
type Transport struct {
	// Base sends the requests. Nil means http.DefaultTransport.
	Base http.RoundTripper

	// Header is the name of the header to set. Empty means DefaultHeader.
	Header string
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base()
	name := t.Header
	if name == "" {
		name = DefaultHeader
	}
	l, ok := FromContext(req.Context())
	if !ok || req.Header.Get(name) != "" || !sameOrigin(req) {
		return base.RoundTrip(req)
	}
	clone := req.Clone(req.Context())
	if clone.Header == nil {
		clone.Header = make(http.Header)
	}
	clone.Header.Set(name, l.String())
	return base.RoundTrip(clone)
}

// CloseIdleConnections calls CloseIdleConnections on Base if it has that
// method (http.Transport does), and does nothing otherwise.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base().(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t *Transport) base() http.RoundTripper {
	if t.Base == nil {
		return http.DefaultTransport
	}
	return t.Base
}

// maxHops bounds the walk back along a redirect chain; http.Client stops
// after 10 redirects by default.
const maxHops = 100

// sameOrigin reports whether req goes to the host and port of the first
// request of its redirect chain: http.Client sets Response on each request
// it makes to follow a redirect, and the Transport that sent the previous
// request sets that Response's Request.
func sameOrigin(req *http.Request) bool {
	first := req
	for range maxHops {
		if first.Response == nil {
			return first == req || addr(first.URL) == addr(req.URL)
		}
		if first = first.Response.Request; first == nil || first.URL == nil {
			return false
		}
	}
	return false
}

// addr returns u's host in lower case and its port, the scheme's default
// if u names none, as "host:port".
func addr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https", "wss":
			port = "443"
		default:
			port = "80"
		}
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}
