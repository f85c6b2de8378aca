package priority

import "net/http"

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
// carries the header: the caller's request is never modified. A Transport
// is safe for concurrent use by multiple goroutines.
type Transport struct {
	// Base sends the requests. Nil means http.DefaultTransport.
	Base http.RoundTripper

	// Header is the name of the header to set. Empty means DefaultHeader.
	Header string
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	name := t.Header
	if name == "" {
		name = DefaultHeader
	}
	l, ok := FromContext(req.Context())
	if !ok || req.Header.Get(name) != "" {
		return base.RoundTrip(req)
	}
	clone := req.Clone(req.Context())
	if clone.Header == nil {
		clone.Header = make(http.Header)
	}
	clone.Header.Set(name, l.String())
	return base.RoundTrip(clone)
}
