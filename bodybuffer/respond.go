package bodybuffer

import (
	"context"
	"net/http"
	"strconv"
)

// Preformatted refusals: header values and bodies are built once, so a
// default refusal allocates nothing of ours.
var (
	hdrClose       = []string{"close"}
	hdrContentType = []string{"text/plain; charset=utf-8"}
	hdrNoSniff     = []string{"nosniff"}

	msgTooLarge = newRefusal("request body too large\n")
	msgTimeout  = newRefusal("request body timeout\n")
	msgBad      = newRefusal("bad request body\n")
	msgInternal = newRefusal("cannot store request body\n")
)

type refusal struct {
	body []byte
	clen []string
}

func newRefusal(s string) refusal {
	return refusal{body: []byte(s), clen: []string{strconv.Itoa(len(s))}}
}

// refuse answers a request whose body will not reach next. The connection
// is always closed: what is left of the body on the wire cannot be trusted
// to frame the next request.
func (b *Buffer) refuse(w http.ResponseWriter, r *http.Request, status int, class, err error) {
	h := w.Header()
	h["Connection"] = hdrClose
	if b.reject != nil {
		ctx := context.WithValue(r.Context(), causeKey{}, wrap(class, err))
		b.reject.ServeHTTP(w, r.WithContext(ctx))
		return
	}
	var m refusal
	switch status {
	case http.StatusRequestEntityTooLarge:
		m = msgTooLarge
	case http.StatusRequestTimeout:
		m = msgTimeout
	case http.StatusBadRequest:
		m = msgBad
	default:
		m = msgInternal
	}
	h["Content-Type"] = hdrContentType
	h["X-Content-Type-Options"] = hdrNoSniff
	h["Content-Length"] = m.clen
	w.WriteHeader(status)
	w.Write(m.body)
}
