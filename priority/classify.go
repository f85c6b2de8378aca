package priority

import "net/http"

// A Classifier returns the level of a request. A limiter calls it once per
// request, before admission, so it must be cheap, must not read the body,
// and must be safe for concurrent use by multiple goroutines.
type Classifier func(*http.Request) Level

// Context is the Classifier that returns the level stored in the request's
// context by WithLevel (an earlier middleware decided it), or Default.
func Context(r *http.Request) Level {
	l, _ := FromContext(r.Context())
	return l
}

// DefaultHeader is the header that Transport writes and Header reads when
// given no other name, and that the limiters set on a refusal to name the
// level refused.
const DefaultHeader = "Frontdoor-Priority"

// Header returns a Classifier that reads the level from the request header
// name (DefaultHeader if name is empty), as written by Transport or by
// Level.String: a request without the header, or with a value Parse does
// not know, gets Default.
//
// The client decides what that header says: use Header only where the
// header comes from a peer you trust, such as your own services, or behind
// a proxy that removes it from outside requests.
func Header(name string) Classifier {
	if name == "" {
		name = DefaultHeader
	}
	key := http.CanonicalHeaderKey(name)
	return func(r *http.Request) Level {
		v := r.Header[key]
		if len(v) == 0 {
			return Default
		}
		l, _ := Parse(v[0])
		return l
	}
}
