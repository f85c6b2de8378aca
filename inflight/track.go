package inflight

import "net/http"

// Track returns a middleware that counts the requests passing through it
// in c: one Inc before next runs and exactly one Dec after it returns,
// also when next panics (http.ErrAbortHandler included; the panic goes on
// to net/http unchanged). Track never refuses a request; pair it with shed,
// or read c from a health check or the metrics package.
//
// The ResponseWriter and Request reach next untouched, so every optional
// interface of the writer survives.
func Track(c *Counter) func(http.Handler) http.Handler {
	if c == nil {
		panic("inflight: Track needs a non-nil *Counter")
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c.Inc()
			defer c.Dec()
			next.ServeHTTP(w, r)
		})
	}
}
