package shed

import (
	"net/http"
	"strconv"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/retryafter"
)

// refusalBody is the body of the default refusal.
const refusalBody = "503 service overloaded, retry later\n"

// refusal writes the default 503. Header values and the body are built once
// at construction so that writing a refusal allocates nothing of ours. It
// sends no more headers than a client needs, since net/http spends time on
// each one on every refusal; the fixed body gives nothing to sniff, so no
// X-Content-Type-Options.
type refusal struct {
	retryAfter    []string
	contentType   []string
	contentLength []string
	connection    []string // nil unless Connection: close was asked for
	body          []byte
}

func newRefusal(retryAfter time.Duration, closeConn bool) *refusal {
	f := &refusal{
		retryAfter:    []string{retryafter.Value(retryAfter)},
		contentType:   []string{"text/plain; charset=utf-8"},
		contentLength: []string{strconv.Itoa(len(refusalBody))},
		body:          []byte(refusalBody),
	}
	if closeConn {
		f.connection = []string{"close"}
	}
	return f
}

func (f *refusal) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	// Canonical keys assigned directly: no canonicalization, no new slices.
	// The slices are shared by all refusals, which is safe because no user
	// handler runs here (Reject replaces this refusal whole) and net/http
	// copies the header at WriteHeader; code around the Shedder may
	// replace them (Header().Set) but must not write into them.
	h["Retry-After"] = f.retryAfter
	h["Content-Type"] = f.contentType
	h["Content-Length"] = f.contentLength
	if f.connection != nil {
		h["Connection"] = f.connection
	}
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(f.body)
}
