package retry

import (
	"errors"
	"io"
	"net"
	"net/http"
)

// replayable reports whether req's body can be sent again: it has none,
// or GetBody returns a fresh copy of it.
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// idempotent reports whether sending req twice has the effect of sending
// it once: its method is idempotent (RFC 9110 §9.2.2), or the caller says
// so with an Idempotency-Key header (or X-Idempotency-Key, the two that
// net/http's own Transport reads) or with the Transport's predicate.
func (t *Transport) idempotent(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace,
		http.MethodPut, http.MethodDelete:
		return true
	}
	if _, ok := req.Header["Idempotency-Key"]; ok {
		return true
	}
	if _, ok := req.Header["X-Idempotency-Key"]; ok {
		return true
	}
	return t.Idempotent != nil && t.Idempotent(req)
}

// transient reports whether err, returned by Base for an attempt whose
// context is still live, may go away on another attempt: a network error
// (a net.Error, timeouts included), or a connection closed before the
// whole response came (io.EOF, io.ErrUnexpectedEOF). Anything else, such
// as a certificate that does not verify, a malformed URL, or a host name
// that does not exist, would fail the same way again.
func transient(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// unsent reports whether err says that the attempt never reached the
// server: the connection to it could not be made (a *net.OpError of Op
// "dial", which includes failed name lookups). Such an attempt is safe to
// send again whatever its method.
//
// net/http knows more: it tracks whether any byte of a request was
// written, and its Transport itself sends again, on a new connection, a
// request that failed on a reused connection before any byte was written
// (with a body only if GetBody is set). But it returns the bare cause of
// such a failure, the same error as for a failure after the request was
// written, so from outside the two cannot be told apart; only dial
// errors are taken as proof here.
func unsent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// retryable reports whether an attempt that ended with (resp, err) is
// worth sending again: it was refused (503 or 429) or failed with a
// transient error.
func retryable(resp *http.Response, err error) bool {
	if err != nil {
		return transient(err)
	}
	return refusal(resp)
}

// safe reports whether req may be sent again after an attempt that ended
// with err (nil if it was answered): its body can be replayed, and it is
// idempotent or never reached the server.
func (t *Transport) safe(req *http.Request, err error) bool {
	return replayable(req) && (t.idempotent(req) || err != nil && unsent(err))
}

// refusal reports whether resp is a server's refusal to do the work now:
// 503 Service Unavailable (overloaded) or 429 Too Many Requests (rate
// limited). Other statuses, 5xx included, are the server's answer to the
// request itself: they are returned as they are, never retried, and count
// as accepted by the throttle.
func refusal(resp *http.Response) bool {
	return resp.StatusCode == http.StatusServiceUnavailable ||
		resp.StatusCode == http.StatusTooManyRequests
}
