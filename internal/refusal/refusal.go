// Package refusal writes the default answer to a refused request: 503
// Service Unavailable with Retry-After, a short fixed text body and, if
// asked for, Connection: close.
//
// A Refusal is built once, at construction of the middleware that owns
// it. Write sends header values shared by every refusal, which is safe
// because no user code runs between setting them and net/http copying
// them at WriteHeader. SetHeaders gives user code (a Reject handler) the
// same headers with values of its own, which it may change in place.
package refusal

import (
	"net/http"
	"strconv"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/retryafter"
)

// A Refusal is a preformatted 503 answer. It is safe for concurrent use by
// multiple goroutines; it is never modified after New.
type Refusal struct {
	retryAfter    []string
	contentType   []string
	contentLength []string
	connection    []string // nil unless Connection: close was asked for
	body          []byte
}

// New returns a Refusal that sends Retry-After as retryAfter in whole
// seconds (see retryafter.Seconds), body as text/plain, and Connection:
// close if closeConn is true.
func New(retryAfter time.Duration, body string, closeConn bool) *Refusal {
	f := &Refusal{
		retryAfter:    []string{retryafter.Value(retryAfter)},
		contentType:   []string{"text/plain; charset=utf-8"},
		contentLength: []string{strconv.Itoa(len(body))},
		body:          []byte(body),
	}
	if closeConn {
		f.connection = []string{"close"}
	}
	return f
}

// Write sends the refusal on w. It allocates nothing: its header values
// are shared by every refusal, so code around the middleware may replace
// them (Header().Set) but must not write into them in place. It sends no
// more headers than a client needs, since net/http spends time on each;
// the fixed body gives nothing to sniff, so no X-Content-Type-Options.
func (f *Refusal) Write(w http.ResponseWriter) {
	h := w.Header()
	// Canonical keys assigned directly: no canonicalization, no new slices.
	h["Retry-After"] = f.retryAfter
	h["Content-Type"] = f.contentType
	h["Content-Length"] = f.contentLength
	if f.connection != nil {
		h["Connection"] = f.connection
	}
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(f.body)
}

// SetHeaders sets the refusal's Retry-After and, if it closes the
// connection, Connection: close on h, each with a new slice of its own,
// for user code that writes the answer itself.
func (f *Refusal) SetHeaders(h http.Header) {
	h["Retry-After"] = []string{f.retryAfter[0]}
	if f.connection != nil {
		h["Connection"] = []string{"close"}
	}
}
