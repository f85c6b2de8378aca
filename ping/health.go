package ping

import "net/http"

// Handler returns a middleware that answers GET and HEAD requests for path
// with 200 and the body DefaultBody, before next runs; every other request
// goes to next unchanged. An empty path returns next unchanged. It is
// shorthand for New(Options{ReadyPath: path}).Handler, without access to
// the drain state; use New for draining and a separate liveness path.
func Handler(path string) func(http.Handler) http.Handler {
	if path == "" {
		return func(next http.Handler) http.Handler { return next }
	}
	return New(Options{ReadyPath: path}).Handler
}

// Handler returns next wrapped so that GET and HEAD requests for the live
// and ready paths are answered here, before next and anything it wraps:
//
//   - live path: 200 with Body, always;
//   - ready path: 200 with Body while Ready; 503 with "draining\n",
//     Retry-After and Connection: close while Draining or in Maint.
//
// Answers carry Content-Type: text/plain; charset=utf-8 and Cache-Control:
// no-store. Their header values are preformatted and shared by every
// answer, so answering allocates nothing: middleware wrapping the handler
// may replace them (Header().Set) but must not write into them in place.
//
// Every other request (other paths, other methods) goes to next with the
// ResponseWriter and Request untouched, so every optional interface of the
// writer survives; while draining, Connection: close is set on its
// response header first (a value of its own, which next may change), so
// HTTP/1.x keep-alive clients open their next connection to another
// server. The handler is safe for concurrent use by multiple goroutines.
func (c *Checker) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		draining := State(c.state.Load()) != Ready
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			switch p := r.URL.Path; {
			case p == c.ready && p != "":
				if draining {
					c.notReadyN.Add(1)
					c.answer(w, r, http.StatusServiceUnavailable, true)
				} else {
					c.readyN.Add(1)
					c.answer(w, r, http.StatusOK, false)
				}
				return
			case p == c.live && p != "":
				c.liveN.Add(1)
				c.answer(w, r, http.StatusOK, draining)
				return
			}
		}
		if draining {
			// A value of next's own: user code may write into it.
			w.Header()["Connection"] = []string{"close"}
		}
		next.ServeHTTP(w, r)
	})
}

var (
	plainText  = []string{"text/plain; charset=utf-8"}
	noStore    = []string{"no-store"}
	closeValue = []string{"close"}
)

// answer writes a preformatted health-check response. The header values
// are shared by every answer; no handler of the user's runs between
// setting them and WriteHeader, after which net/http works on its own copy.
func (c *Checker) answer(w http.ResponseWriter, r *http.Request, code int, closeConn bool) {
	h := w.Header()
	h["Content-Type"] = plainText
	h["Cache-Control"] = noStore
	body, n := c.okBody, c.okLen
	if code != http.StatusOK {
		body, n = c.drainBody, c.drainLen
		h["Retry-After"] = c.retryAfter
	}
	if closeConn {
		h["Connection"] = closeValue
	}
	h["Content-Length"] = n
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
