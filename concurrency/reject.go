package concurrency

import (
	"net/http"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/refusal"
)

// refusalBody is the body of the default refusal.
const refusalBody = "503 Service Unavailable: busy, retry later\n"

// refusals[n] is the default answer with Retry-After: n seconds, built
// once: the Retry-After of a Limiter follows its queue, within
// 1..maxRetryAfter.
var refusals = func() (t [maxRetryAfter + 1]*refusal.Refusal) {
	for n := range t {
		t[n] = refusal.New(time.Duration(n)*time.Second, refusalBody, false)
	}
	return t
}()

// refuse answers a refused request: Options.Reject, with Retry-After set
// on w in a value of its own, or the default 503.
func (l *Limiter) refuse(w http.ResponseWriter, r *http.Request) {
	f := refusals[l.RetryAfter()]
	if l.reject != nil {
		f.SetHeaders(w.Header())
		l.reject.ServeHTTP(w, r)
		return
	}
	f.Write(w)
}
