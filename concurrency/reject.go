package concurrency

import (
	"net/http"
	"strconv"
)

// maxRetryAfter caps the Retry-After header, in seconds.
const maxRetryAfter = 60

var (
	refusalBody = []byte("503 Service Unavailable: busy, retry later\n")
	contentType = []string{"text/plain; charset=utf-8"}
	contentLen  = []string{strconv.Itoa(len(refusalBody))}
	// retryAfter[n] is the preformatted header value for n seconds, so a
	// refusal formats nothing.
	retryAfter = func() [maxRetryAfter + 1][]string {
		var t [maxRetryAfter + 1][]string
		for i := range t {
			t[i] = []string{strconv.Itoa(i)}
		}
		return t
	}()
)

// RetryAfter returns the Retry-After a refusal would carry now: the
// estimated time for the queue to drain plus one service time, in whole
// seconds rounded up, at least 1 and at most 60.
func (l *Limiter) RetryAfter() int {
	ns := (l.queued.Load()/l.limit + 1) * l.planned()
	s := (ns + 1e9 - 1) / 1e9
	return int(min(max(s, 1), maxRetryAfter))
}

// refuse answers a refused request: Retry-After, then Options.Reject or the
// default 503.
func (l *Limiter) refuse(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Retry-After"] = retryAfter[l.RetryAfter()]
	if l.reject != nil {
		l.reject.ServeHTTP(w, r)
		return
	}
	h["Content-Type"] = contentType
	h["Content-Length"] = contentLen
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(refusalBody)
}
