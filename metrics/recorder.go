package metrics

import (
	"io"
	"net/http"
	"sync"

	"github.com/felixge/httpsnoop"
)

// numClasses is the number of status classes: "other" (codes 600–999,
// which net/http lets a handler send) at index 0, then 1xx to 5xx.
const numClasses = 6

var classNames = [numClasses]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

// classOf returns the index of status's class; 0 (no status sent) counts
// as the 200 net/http sends for a handler that wrote nothing.
func classOf(status int) int {
	switch {
	case status == 0:
		return 2
	case status >= 100 && status < 600:
		return status / 100
	default:
		return 0
	}
}

// recorder keeps what the hooks see of one response. It is used by the
// request's goroutine only (a ResponseWriter is not safe for concurrent
// use), so its fields need no atomics. A recorder is never reused: a
// handler that keeps the wrapped writer past its return writes into its
// own recorder, which nobody reads any more.
type recorder struct {
	w      http.ResponseWriter // the writer that was wrapped
	status int                 // first final status sent, 0 until then
	bytes  int64               // body bytes written
}

// sent notes that a response started with status code, if none had.
// Informational responses other than 101 are not final: net/http sends
// them at once and keeps the real status to come.
func (rec *recorder) sent(code int) {
	if rec.status == 0 && (code >= 200 || code == 101 || code < 100) {
		rec.status = code
	}
}

// The hooks call the wrapped writer's method themselves rather than the
// next func httpsnoop hands them: it is the same method, one indirect
// call less. httpsnoop installs a hook only for a method w has, so the
// assertions cannot fail.

func (rec *recorder) writeHeader(code int) {
	rec.w.WriteHeader(code)
	rec.sent(code)
}

func (rec *recorder) write(p []byte) (int, error) {
	n, err := rec.w.Write(p)
	rec.sent(200)
	rec.bytes += int64(n)
	return n, err
}

func (rec *recorder) writeString(s string) (int, error) {
	n, err := rec.w.(io.StringWriter).WriteString(s)
	rec.sent(200)
	rec.bytes += int64(n)
	return n, err
}

func (rec *recorder) readFrom(src io.Reader) (int64, error) {
	n, err := rec.w.(io.ReaderFrom).ReadFrom(src)
	rec.sent(200)
	rec.bytes += n
	return n, err
}

// wrap returns rec.w wrapped by httpsnoop with rec's four hooks.
//
// httpsnoop calls each hook once, inside Wrap, to get the function to
// install. Built per request, those four hook closures would cost four
// allocations; instead they are built once per wrapper and read the
// recorder to hand out from wrapper.cur. A wrapper is taken from a pool,
// used for the one Wrap call and put back: nothing the handler receives
// refers to it, so a handler that misbehaves after returning cannot reach
// it. What the handler can reach (the wrapped writer, the recorder's
// method values) is allocated afresh for each request.
func (rec *recorder) wrap() http.ResponseWriter {
	h := wrappers.Get().(*wrapper)
	h.cur = rec
	ww := httpsnoop.Wrap(rec.w, h.hooks)
	h.cur = nil
	wrappers.Put(h)
	return ww
}

// A wrapper holds hooks that return the method values of cur.
type wrapper struct {
	cur   *recorder
	hooks httpsnoop.Hooks
}

var wrappers = sync.Pool{New: func() any { return newWrapper() }}

// newWrapper builds a wrapper's hooks. Should a hook ever run outside
// wrap (cur nil), it leaves the method unobserved rather than attribute
// it to another request.
func newWrapper() *wrapper {
	h := &wrapper{}
	h.hooks = httpsnoop.Hooks{
		WriteHeader: func(next httpsnoop.WriteHeaderFunc) httpsnoop.WriteHeaderFunc {
			if h.cur == nil {
				return next
			}
			return h.cur.writeHeader
		},
		Write: func(next httpsnoop.WriteFunc) httpsnoop.WriteFunc {
			if h.cur == nil {
				return next
			}
			return h.cur.write
		},
		WriteString: func(next httpsnoop.WriteStringFunc) httpsnoop.WriteStringFunc {
			if h.cur == nil {
				return next
			}
			return h.cur.writeString
		},
		ReadFrom: func(next httpsnoop.ReadFromFunc) httpsnoop.ReadFromFunc {
			if h.cur == nil {
				return next
			}
			return h.cur.readFrom
		},
	}
	return h
}
