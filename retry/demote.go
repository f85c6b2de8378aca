package retry

import (
	"net/http"

	"github.com/frontdoor-go/frontdoor/priority"
)

// Demote returns a Classifier, for the server side, that gives a request
// the level c gives it, one level lower if it is a retry: if its
// AttemptHeader says 2 or more, as the Transport sends on every retry.
// Sheddable stays Sheddable. Nil c means priority.Default for every
// request. Passed as shed.Options.Priority or concurrency.Options.Priority,
// it makes an overloaded server refuse retries before first attempts of
// the same level:
//
//	s := shed.New(shed.Options{Priority: retry.Demote(priority.Header(""))})
//
// The header is the client's word, but it can only lower a request's
// level: a client that leaves it out keeps the level c gives, so Demote
// may read it from any client, trusted or not. It allocates nothing.
func Demote(c priority.Classifier) priority.Classifier {
	return func(r *http.Request) priority.Level {
		l := priority.Default
		if c != nil {
			l = min(max(c(r), priority.Sheddable), priority.CriticalPlus)
		}
		if l > priority.Sheddable && isRetry(r) {
			l--
		}
		return l
	}
}

// isRetry reports whether the first AttemptHeader of r is a number of 2 or
// more: digits only, no sign.
func isRetry(r *http.Request) bool {
	v := r.Header[AttemptHeader]
	if len(v) == 0 || v[0] == "" {
		return false
	}
	s := v[0]
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return len(s) > 1 || s[0] >= '2'
}
