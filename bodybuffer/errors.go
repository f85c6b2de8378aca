package bodybuffer

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
)

// Errors that Cause reports; match them with errors.Is. A body over
// MaxBytes is reported as *http.MaxBytesError (match it with errors.As).
var (
	// ErrTimeout: no byte arrived for IdleTimeout, the upload was slower
	// than MinRate, Timeout passed, or the request context's deadline.
	ErrTimeout = errors.New("bodybuffer: timed out reading the request body")
	// ErrClientGone: the client closed the connection or reset the stream.
	ErrClientGone = errors.New("bodybuffer: client went away")
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
// still there and gets an answer. Only a canceled context means the
// client is gone.
func classify(r *http.Request, err error) error {
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
		return ErrClientGone
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
// an *http.MaxBytesError, or an error matching ErrTimeout, ErrTruncated or
// ErrSpool with errors.Is. It returns nil for any other request.
func Cause(r *http.Request) error {
	err, _ := r.Context().Value(causeKey{}).(error)
	return err
}
