package bodybuffer

import (
	"net/http"
	"strings"
)

// noBody reports whether there is nothing to buffer.
func noBody(r *http.Request) bool {
	return r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0
}

// passThrough reports whether the request must stream: its body is not a
// finite upload but a tunnel or a stream that next reads as it goes.
// Header lookups index the map directly with canonical keys, which
// allocates nothing.
func (b *Buffer) passThrough(r *http.Request) bool {
	if r.Method == http.MethodConnect || len(r.Header["Upgrade"]) > 0 {
		return true
	}
	if ct := r.Header["Content-Type"]; len(ct) > 0 &&
		(strings.HasPrefix(ct[0], "application/grpc") || strings.HasPrefix(ct[0], "text/event-stream")) {
		return true
	}
	for _, a := range r.Header["Accept"] {
		if strings.Contains(a, "text/event-stream") {
			return true
		}
	}
	return b.skip != nil && b.skip(r)
}
