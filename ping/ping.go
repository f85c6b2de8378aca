package ping

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/retryafter"
)

// Handler returns a middleware that answers GET and HEAD requests for path
// with 200 and the body "ok\n", before next runs; every other request goes
// to next unchanged. An empty path returns next unchanged. It is
// shorthand for New(Options{ReadyPath: path}).Handler, without access to
// the drain state; use New for draining and a separate liveness path.
func Handler(path string) func(http.Handler) http.Handler {
	if path == "" {
		return func(next http.Handler) http.Handler { return next }
	}
	return New(Options{ReadyPath: path}).Handler
}

// Options configures a Checker. The zero value answers no path and has
// the documented defaults below.
type Options struct {
	// ReadyPath answers 200 while ready and 503 while draining, so a load
	// balancer checking it stops sending traffic. Empty means none.
	ReadyPath string
	// LivePath answers 200 while the process runs, draining or not (a
	// Kubernetes liveness probe). Empty means none.
	LivePath string
	// Body is the body of a 200 answer. Empty means "ok\n".
	Body string
	// RetryAfter is sent, rounded up to whole seconds and capped at one
	// day (86400), with the 503 of the ready path while draining. Zero
	// means 1s.
	RetryAfter time.Duration
	// DrainDelay is how long ServeUntil keeps serving after it starts to
	// drain and before it stops listening: long enough for every load
	// balancer to see the drain (HAProxy: the agent-inter, or inter × fall
	// for an HTTP check). Zero means 6s (HAProxy's default inter 2s × fall
	// 3); a negative value means no delay.
	DrainDelay time.Duration
	// ShutdownTimeout bounds how long ServeUntil waits for requests in
	// flight after it stops listening; when it passes, the remaining
	// connections are closed. Zero means wait for every request.
	ShutdownTimeout time.Duration
}

// A Checker answers health checks and holds the drain state of one
// server. Create it with New; the zero value is not usable. A Checker is
// safe for concurrent use by multiple goroutines.
type Checker struct {
	ready, live       string
	okBody, drainBody []byte
	okLen, drainLen   []string
	retryAfter        []string
	drainDelay        time.Duration
	shutdownTimeout   time.Duration

	state                    atomic.Int32
	liveN, readyN, notReadyN atomic.Uint64
}

// New returns a Checker configured by opts, in state Ready. It panics if
// a path does not start with "/" or if both paths are the same.
func New(opts Options) *Checker {
	for _, p := range []string{opts.ReadyPath, opts.LivePath} {
		if p != "" && p[0] != '/' {
			panic("ping: paths must start with \"/\"")
		}
	}
	if opts.ReadyPath != "" && opts.ReadyPath == opts.LivePath {
		panic("ping: ReadyPath and LivePath must differ")
	}
	if opts.RetryAfter < 0 {
		panic("ping: RetryAfter must be >= 0")
	}
	if opts.ShutdownTimeout < 0 {
		panic("ping: ShutdownTimeout must be >= 0")
	}
	body := opts.Body
	if body == "" {
		body = "ok\n"
	}
	ra := opts.RetryAfter
	if ra == 0 {
		ra = time.Second
	}
	delay := opts.DrainDelay
	switch {
	case delay == 0:
		delay = 6 * time.Second
	case delay < 0:
		delay = 0
	}
	const drainBody = "draining\n"
	return &Checker{
		ready:           opts.ReadyPath,
		live:            opts.LivePath,
		okBody:          []byte(body),
		drainBody:       []byte(drainBody),
		okLen:           []string{strconv.Itoa(len(body))},
		drainLen:        []string{strconv.Itoa(len(drainBody))},
		retryAfter:      []string{retryafter.Value(ra)},
		drainDelay:      delay,
		shutdownTimeout: opts.ShutdownTimeout,
	}
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
