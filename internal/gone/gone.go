// Package gone tells a request whose client went away from one whose
// context was canceled for another reason, so that the middlewares answer
// the second and not the first.
//
// net/http cancels a request's context, without a cause, when it sees the
// connection close (a read from it fails; on HTTP/2, when the client
// resets the stream or the connection ends), and when the handler returns.
// A context is also canceled while the client still waits for an answer
// when the server's BaseContext is canceled, or a middleware outside
// cancels the context it passes on. The context alone cannot tell these
// apart: an outer context.WithCancel gives the same error and the same
// cause as net/http. What net/http does tell is that the connection or
// stream closed, through http.CloseNotifier, which it signals right after
// it cancels the context.
//
// So the rule of every frontdoor middleware: a client is gone only when
// its request's context was canceled with no cause of its own (the cause
// is context.Canceled) and its ResponseWriter, or a writer it unwraps to,
// reports the close through CloseNotify. Such a client gets nothing: the
// middleware panics with http.ErrAbortHandler, and net/http closes the
// connection (or resets the stream) without an answer. A context that
// ended in any other way (a deadline, a cause of its own, a writer that
// reports no close) is one whose client may still be waiting: it is
// answered with a refusal it can act on, never left to net/http's
// implicit 200.
package gone

import (
	"context"
	"net/http"
	"time"
)

// Grace is how long Client waits, after finding the context canceled, for
// the writer to report the close: net/http cancels the context first and
// signals CloseNotify just after, on HTTP/2 from another goroutine. The
// docs of concurrency and bodybuffer name its value.
const Grace = 50 * time.Millisecond

// Client reports whether the client of a request with context ctx, whose
// response goes to w, is provably gone, by the rule of the package
// documentation. It returns false at once if ctx is not done, if its
// cause is not context.Canceled, or if no writer along w's Unwrap chain
// is an http.CloseNotifier; otherwise it waits up to Grace for the close.
// It must be called before the handler returns.
func Client(ctx context.Context, w http.ResponseWriter) bool {
	if ctx.Err() == nil || context.Cause(ctx) != context.Canceled {
		return false
	}
	cn := closeNotifier(w)
	if cn == nil {
		return false
	}
	closed := cn.CloseNotify()
	select {
	case <-closed:
		return true
	default:
	}
	t := time.NewTimer(Grace)
	defer t.Stop()
	select {
	case <-closed:
		return true
	case <-t.C:
		return false
	}
}

// closeNotifier returns the first writer along w's Unwrap chain that
// implements http.CloseNotifier (deprecated for handlers, which should
// watch the context; it is the one signal that the connection closed), or
// nil.
func closeNotifier(w http.ResponseWriter) http.CloseNotifier {
	for range 100 { // a bound against a cycle of Unwrap
		if cn, ok := w.(http.CloseNotifier); ok {
			return cn
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		if w = u.Unwrap(); w == nil {
			return nil
		}
	}
	return nil
}
