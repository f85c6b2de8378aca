package bodybuffer

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// Preformatted refusals: header values and bodies are built once, so a
// default refusal allocates nothing of ours. These shared values are
// never handed to user code (a Reject handler gets values of its own).
var (
	hdrClose       = []string{"close"}
	hdrContentType = []string{"text/plain; charset=utf-8"}
	hdrNoSniff     = []string{"nosniff"}

	msgTooLarge = newRefusal("request body too large\n")
	msgTimeout  = newRefusal("request body timeout\n")
	msgBad      = newRefusal("bad request body\n")
	msgInternal = newRefusal("cannot store request body\n")
)

// closeGrace is how long net/http may still read the rest of a refused
// body after the response, on HTTP/1: a client still uploading gets to
// read the answer rather than a reset, and then the connection closes,
// however slowly the client sends.
const closeGrace = 500 * time.Millisecond

type refusal struct {
	body []byte
	clen []string
}

func newRefusal(s string) refusal {
	return refusal{body: []byte(s), clen: []string{strconv.Itoa(len(s))}}
}

// refuse answers a request whose body will not reach next. On HTTP/1 the
// connection is closed: what is left of the body on the wire cannot be
// trusted to frame the next request. On HTTP/2 only the stream ends (a
// Connection: close there would make net/http send GOAWAY and end every
// other stream of the connection).
func (b *Buffer) refuse(w http.ResponseWriter, r *http.Request, status int, class, err error) {
	http1 := r.ProtoMajor < 2
	if http1 {
		defer closeSoon(w)
	}
	h := w.Header()
	if b.reject != nil {
		if http1 {
			h["Connection"] = []string{"close"}
		}
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
	if http1 {
		h["Connection"] = hdrClose
	}
	h["Content-Type"] = hdrContentType
	h["X-Content-Type-Options"] = hdrNoSniff
	h["Content-Length"] = m.clen
	w.WriteHeader(status)
	w.Write(m.body)
}

// closeSoon sets the read deadline to closeGrace from now. Once the
// handler returns, net/http reads what is left of the body (up to 256 KiB)
// before it closes the connection, with no time bound unless one is set:
// a client trickling its body would keep the connection open.
func closeSoon(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(closeGrace))
}
