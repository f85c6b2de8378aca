package bodybuffer

import (
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/histogram"
)

// Defaults for the zero fields of Options.
const (
	// DefaultMaxBytes is the largest body accepted, like nginx's
	// client_max_body_size.
	DefaultMaxBytes = 1 << 20
	// DefaultMemBytes is how much of one body is held in memory before the
	// rest spools to a temporary file (never more than MaxBytes).
	DefaultMemBytes = 1 << 20
	// DefaultIdleTimeout bounds the wait between two reads of the body,
	// like nginx's client_body_timeout.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMinRate is the lowest average upload rate accepted, in bytes
	// per second, once MinRateGrace has passed, like Kestrel's
	// MinRequestBodyDataRate.
	DefaultMinRate = 240
	// DefaultMinRateGrace is how long an upload may run before its
	// average rate is checked.
	DefaultMinRateGrace = 5 * time.Second
)

// Options configure a Buffer. The zero value buffers bodies of up to
// DefaultMaxBytes, in memory up to DefaultMemBytes, with DefaultIdleTimeout
// between reads, DefaultMinRate after DefaultMinRateGrace, no bound on the
// whole read, and spools to os.TempDir().
type Options struct {
	// MaxBytes is the largest body accepted; a larger one gets 413.
	// 0 means DefaultMaxBytes; -1 means no limit; below -1 panics.
	MaxBytes int64

	// MemBytes is how many bytes of one body are held in memory; a larger
	// body spools to an unlinked temporary file in Dir. It is capped at
	// MaxBytes. The heap held by bodies is at most the number of bodies
	// being read or still held (by next or what next handed them to) times
	// MemBytes rounded up to a power of two. 0 means DefaultMemBytes;
	// negative panics.
	MemBytes int64

	// Dir is the directory for spooled bodies; "" means os.TempDir().
	Dir string

	// IdleTimeout bounds the time between two successful reads, not the
	// whole body; a client that sends nothing for that long gets 408. The
	// deadline is refreshed lazily, so the wait allowed lies between
	// IdleTimeout and 9/8 × IdleTimeout. 0 means DefaultIdleTimeout; -1
	// means no idle timeout; below -1 panics.
	IdleTimeout time.Duration

	// Timeout bounds the whole body read from the moment the middleware
	// starts reading; past it the client gets 408. A deadline of the
	// request context bounds the read the same way. 0 and -1 mean no
	// bound on the whole read (IdleTimeout and MinRate still apply);
	// below -1 panics.
	Timeout time.Duration

	// MinRate is the lowest average upload rate, in bytes per second,
	// counted from the moment the middleware starts reading. Once
	// MinRateGrace has passed, a client whose body has arrived at a lower
	// average rate gets 408: a client trickling a few bytes now and then
	// is cut off even though no single gap reaches IdleTimeout. 0 means
	// DefaultMinRate; -1 turns the check off; below -1 panics.
	MinRate int64

	// MinRateGrace is how long an upload may run before MinRate applies.
	// 0 means DefaultMinRateGrace; -1 means no grace; below -1 panics.
	MinRateGrace time.Duration

	// Exempt, if not nil, is called for every request with a body;
	// requests for which it returns true pass to next untouched, with the
	// body unread (for streaming endpoints). Requests with no body,
	// CONNECT and Upgrade requests, gRPC and text/event-stream always pass
	// untouched. Nil means no other request is exempt.
	Exempt func(*http.Request) bool

	// Reject, if not nil, writes the answer to a refused request instead
	// of the default. When it is called, the refusal's headers are
	// already set on w with values of this request's own: on HTTP/1
	// Connection: close (the connection closes after the answer), and
	// Retry-After only for a request whose context was canceled while its
	// client was still connected (ErrCanceled, 503 by default); no other
	// refusal carries Retry-After. Reject writes the status and the body;
	// Cause(r) tells why the request was refused (413, 408, 503, 400 or
	// 500 by default). It is not called for requests whose client went
	// away. Nil means the default answers described at Handler.
	Reject http.Handler
}

// A Buffer reads request bodies fully before passing requests on. Create
// it with New; it is safe for concurrent use by multiple goroutines.
type Buffer struct {
	maxBytes int64 // -1: no limit
	memBytes int64
	dir      string
	lim      limits
	exempt   func(*http.Request) bool
	reject   http.Handler
	tooLarge *http.MaxBytesError

	c counters
}

// New returns a Buffer configured by o. It panics if a field is out of
// range (see Options), with a message starting "bodybuffer: ".
func New(o Options) *Buffer {
	switch {
	case o.MaxBytes < -1:
		panic("bodybuffer: MaxBytes must be >= -1")
	case o.MemBytes < 0:
		panic("bodybuffer: MemBytes must be >= 0")
	case o.IdleTimeout < -1:
		panic("bodybuffer: IdleTimeout must be >= -1")
	case o.Timeout < -1:
		panic("bodybuffer: Timeout must be >= -1")
	case o.MinRate < -1:
		panic("bodybuffer: MinRate must be >= -1")
	case o.MinRateGrace < -1:
		panic("bodybuffer: MinRateGrace must be >= -1")
	}
	b := &Buffer{
		maxBytes: orDefault(o.MaxBytes, DefaultMaxBytes),
		memBytes: orDefault(o.MemBytes, DefaultMemBytes),
		dir:      o.Dir,
		lim: limits{
			idle:  orNone(o.IdleTimeout, DefaultIdleTimeout),
			total: orNone(o.Timeout, 0),
			rate:  orNone(o.MinRate, DefaultMinRate),
			grace: orNone(o.MinRateGrace, DefaultMinRateGrace),
		},
		exempt: o.Exempt,
		reject: o.Reject,
	}
	if b.maxBytes >= 0 && b.memBytes > b.maxBytes {
		b.memBytes = b.maxBytes
	}
	if b.dir == "" {
		b.dir = os.TempDir()
	}
	b.tooLarge = &http.MaxBytesError{Limit: b.maxBytes}
	b.c.sizes = histogram.New(sizeBounds, 1)
	return b
}

// orDefault returns def for 0 and v otherwise.
func orDefault[T int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// orNone returns def for 0, 0 (none) for -1, and v otherwise.
func orNone[T int64 | time.Duration](v, def T) T {
	if v == -1 {
		return 0
	}
	return orDefault(v, def)
}

// Limit returns a middleware that buffers bodies of up to maxBytes with
// the other defaults of Options: New(Options{MaxBytes: maxBytes}).Handler.
func Limit(maxBytes int64) func(http.Handler) http.Handler {
	return New(Options{MaxBytes: maxBytes}).Handler
}

// Handler returns a middleware that reads each request body fully before
// calling next.
//
// Sent: 413 (body over MaxBytes), 408 (IdleTimeout, MinRate, Timeout or
// the request context's deadline passed), 503 with Retry-After: 1 (the
// request context was canceled while the client was still connected),
// 400 (truncated or malformed body) and 500 (a spool file could not be
// written), each with Content-Type: text/plain; charset=utf-8,
// X-Content-Type-Options: nosniff and a short fixed body, or whatever
// Reject writes. On HTTP/1.x a refusal also carries Connection: close, and
// the connection closes shortly after the response; on HTTP/2 only the
// refused stream ends. For a client that is provably gone (see Outcomes
// in the package documentation) nothing is written: Handler panics with
// http.ErrAbortHandler, which makes net/http close the connection or
// reset the stream without logging; middlewares outside should let that
// panic through.
//
// What next sees: a shallow copy of the request whose Body is a reader
// over the complete body, ContentLength its length, TransferEncoding nil
// and GetBody a fresh reader over the same bytes. The ResponseWriter
// reaches next untouched, so every optional interface survives. See the
// package documentation for the body's lifetime and the time bounds.
func (b *Buffer) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.serve(w, r, next)
	})
}

// serve is the whole middleware: pass through, refuse on the declared
// length, read, refuse on a failed read, or run next on the buffered body.
func (b *Buffer) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if noBody(r) {
		next.ServeHTTP(w, r)
		return
	}
	if b.passThrough(r) {
		b.c.passed.Add(1)
		next.ServeHTTP(w, r)
		return
	}
	// Refuse on the declared length before the first Read: for
	// "Expect: 100-continue" that first Read is what sends 100 Continue.
	if b.maxBytes >= 0 && r.ContentLength > b.maxBytes {
		b.c.tooLarge.Add(1)
		b.refuse(w, r, http.StatusRequestEntityTooLarge, b.tooLarge, nil)
		return
	}

	u := getUpload()
	defer b.putUpload(u) // also when the body's Read panics
	err := b.read(w, r, u)
	if err != nil {
		if r.ProtoMajor >= 2 {
			// On HTTP/1 the refusal sets a last deadline instead.
			u.dl.clear()
		}
		b.fail(w, r, err)
		return
	}
	u.dl.clear()
	b.c.buffered.Add(1)
	b.c.sizes.Observe(u.n)
	if u.file != nil {
		b.c.spilled.Add(1)
	}

	h := b.handOff(r, u)
	r2 := &h.req
	defer func() {
		// Also on panic. net/http removes the files of a multipart form
		// parsed on its own request only.
		if r2.MultipartForm != nil && r2.MultipartForm != r.MultipartForm {
			r2.MultipartForm.RemoveAll()
		}
		h.data.release()
	}()
	next.ServeHTTP(w, r2)
}

// noBody reports whether there is nothing to buffer.
func noBody(r *http.Request) bool {
	return r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0
}

// passThrough reports whether the request must stream: its body is not a
// finite upload but a tunnel or a stream that next reads as it goes, or
// Exempt says so. Header lookups index the map directly with canonical
// keys, which allocates nothing.
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
	return b.exempt != nil && b.exempt(r)
}
