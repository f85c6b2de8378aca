package concurrency

import (
	"net/http"
	"strconv"
)

var (
	refusalBody = []byte("503 Service Unavailable: busy, retry later\n")
	contentType = []string{"text/plain; charset=utf-8"}
	contentLen  = []string{strconv.Itoa(len(refusalBody))}
	// retryAfterText[n] is the header value for n seconds, formatted once.
	retryAfterText = func() (t [maxRetryAfter + 1]string) {
		for i := range t {
			t[i] = strconv.Itoa(i)
		}
		return t
	}()
	// retryAfter[n] is the same value as a header slice, shared by every
	// default refusal, so that one allocates nothing.
	retryAfter = func() (t [maxRetryAfter + 1][]string) {
		for i := range t {
			t[i] = []string{retryAfterText[i]}
		}
		return t
	}()
)

// refuse answers a refused request: Retry-After, then Options.Reject or the
// default 503.
//
// The shared header slices go only into the default response, which this
// package writes itself at once. A Reject handler gets a slice of its own:
// it may change it in place (h["Retry-After"][0] = …), and a shared one
// would carry the change into every later refusal.
func (l *Limiter) refuse(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	n := l.RetryAfter()
	if l.reject != nil {
		h["Retry-After"] = []string{retryAfterText[n]}
		l.reject.ServeHTTP(w, r)
		return
	}
	h["Retry-After"] = retryAfter[n]
	h["Content-Type"] = contentType
	h["Content-Length"] = contentLen
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(refusalBody)
}
