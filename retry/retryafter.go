package retry

import (
	"net/http"
	"strings"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/retryafter"
)

// parseRetryAfter returns the delay that a Retry-After header value v asks
// for at now, and whether v is valid (RFC 9110 §10.2.3): a number of
// seconds, digits only, or an HTTP-date, whose delay is the time from now
// to it, 0 if it has passed. A delay longer than a day (retryafter.Max) is
// read as a day: the Transport never waits that long, and a large number
// of seconds would overflow a Duration.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	const maxDelay = retryafter.Max * time.Second
	if v[0] >= '0' && v[0] <= '9' {
		var s int64
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			if s <= retryafter.Max {
				s = s*10 + int64(c-'0')
			}
		}
		return min(time.Duration(s)*time.Second, maxDelay), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	return min(max(d, 0), maxDelay), true
}
