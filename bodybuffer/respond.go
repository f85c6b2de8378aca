package bodybuffer

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/gone"
)

// Why a body did not reach next; match them with errors.Is. Cause reports
// all but ErrClientGone (no answer is written for a client that is gone).
// A body over MaxBytes is reported as *http.MaxBytesError (match it with
// errors.As).
var (
	// ErrTimeout: no byte arrived for IdleTimeout, the upload was slower
	// than MinRate, Timeout passed, or the request context's deadline.
	ErrTimeout = errors.New("bodybuffer: timed out reading the request body")
	// ErrClientGone: the client closed the connection or reset the stream.
	ErrClientGone = errors.New("bodybuffer: client went away")
	// ErrCanceled: the request context was canceled, not by a deadline,
	// while the client was still connected (the server's BaseContext, a
	// middleware outside).
	ErrCanceled = errors.New("bodybuffer: request context canceled")
	// ErrTruncated: the body ended early or its framing was malformed.
	ErrTruncated = errors.New("bodybuffer: request body truncated or malformed")
	// ErrSpool: the temporary file for a large body could not be written.
	ErrSpool = errors.New("bodybuffer: cannot spool the request body")
)

// errTooLarge marks a body that passed MaxBytes while being read.
var errTooLarge = errors.New("bodybuffer: body too large")

// errCtxDone is returned by read when EOF was reached but the request
// context is already done.
var errCtxDone = errors.New("bodybuffer: request context done")

// classify maps a read error to one outcome, in a fixed order. A timeout
// comes before "client gone" because on HTTP/1 a read deadline also
// cancels the request context. A context whose deadline passed (set by
// an outer middleware, a per-route budget) is a timeout: its client is
// still there and gets an answer. A canceled context means the client is
// gone only if w reports its connection closed (see internal/gone);
// otherwise the client may still wait, and is refused (ErrCanceled).
func classify(w http.ResponseWriter, r *http.Request, err error) error {
	ctx := r.Context()
	switch {
	case err == errTooLarge:
		return errTooLarge
	case isTimeout(err):
		return ErrTimeout
	case ctx.Err() != nil:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			return ErrTimeout
		}
		if gone.Client(ctx, w) {
			return ErrClientGone
		}
		return ErrCanceled
	case errors.Is(err, context.Canceled), errors.Is(err, net.ErrClosed):
		return ErrClientGone
	case errors.Is(err, ErrSpool):
		return ErrSpool
	default:
		return ErrTruncated
	}
}

func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

type causeKey struct{}

// Cause reports why the request reaching a Reject handler was refused:
// an *http.MaxBytesError, or an error matching ErrTimeout, ErrCanceled,
// ErrTruncated or ErrSpool with errors.Is. It returns nil for any other
// request.
func Cause(r *http.Request) error {
	err, _ := r.Context().Value(causeKey{}).(error)
	return err
}

// fail classifies a read error, counts it and answers it.
func (b *Buffer) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch class := classify(w, r, err); class {
	case errTooLarge:
		b.c.tooLarge.Add(1)
		b.refuse(w, r, http.StatusRequestEntityTooLarge, b.tooLarge, nil)
	case ErrTimeout:
		b.c.timedOut.Add(1)
		b.refuse(w, r, http.StatusRequestTimeout, class, err)
	case ErrClientGone:
		// Nobody is listening: count it and abort the response, so that
		// net/http writes nothing either (returning would make it send an
		// implicit 200 to a half-closed client) and closes the connection
		// or resets the stream, without logging.
		b.c.clientGone.Add(1)
		panic(http.ErrAbortHandler)
	case ErrCanceled:
		b.c.canceled.Add(1)
		b.refuse(w, r, http.StatusServiceUnavailable, class, err)
	case ErrSpool:
		b.c.spoolErrors.Add(1)
		b.refuse(w, r, http.StatusInternalServerError, class, err)
	default:
		b.c.truncated.Add(1)
		b.refuse(w, r, http.StatusBadRequest, class, err)
	}
}

// Preformatted refusals: header values and bodies are built once, so a
// default refusal allocates nothing of ours. These shared values are
// never handed to user code (a Reject handler gets values of its own).
// They are not internal/refusal's: of these statuses only the 503 carries
// Retry-After, and every one X-Content-Type-Options.
var (
	hdrClose       = []string{"close"}
	hdrContentType = []string{"text/plain; charset=utf-8"}
	hdrNoSniff     = []string{"nosniff"}
	hdrRetryAfter  = []string{retryAfter}

	msgTooLarge = newRefusal("request body too large\n")
	msgTimeout  = newRefusal("request body timeout\n")
	msgBad      = newRefusal("bad request body\n")
	msgInternal = newRefusal("cannot store request body\n")
	msgCanceled = newRefusal("request canceled, retry later\n")
)

// retryAfter is the Retry-After of the 503 for ErrCanceled, in seconds.
const retryAfter = "1"

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
		if status == http.StatusServiceUnavailable {
			h["Retry-After"] = []string{retryAfter}
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
	case http.StatusServiceUnavailable:
		m = msgCanceled
		h["Retry-After"] = hdrRetryAfter
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

// wrap joins the class and the underlying error for Cause. It runs only
// for a Reject handler, so the default refusal allocates nothing.
func wrap(class, err error) error {
	if err == nil || err == class || errors.Is(err, class) {
		return class
	}
	return &classErr{class: class, err: err}
}

type classErr struct{ class, err error }

func (e *classErr) Error() string   { return e.class.Error() + ": " + e.err.Error() }
func (e *classErr) Unwrap() []error { return []error{e.class, e.err} }
