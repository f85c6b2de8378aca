package bodybuffer

import (
	"net/http"
	"os"
	"time"
)

// Defaults for the zero fields of Options.
const (
	// DefaultMaxBytes is the body size limit, nginx's client_max_body_size.
	DefaultMaxBytes = 1 << 20
	// DefaultMemBytes is how much of one body is kept in memory before the
	// rest spools to a temporary file (never more than MaxBytes).
	DefaultMemBytes = 1 << 20
	// DefaultIdleTimeout bounds the wait between two reads of the body,
	// nginx's client_body_timeout.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMinRate is the lowest average upload rate accepted, in bytes
	// per second, once DefaultMinRateGrace has passed: Kestrel's
	// MinRequestBodyDataRate.
	DefaultMinRate = 240
	// DefaultMinRateGrace is how long an upload may run before its
	// average rate is checked.
	DefaultMinRateGrace = 5 * time.Second
)

// Options configure a Buffer. The zero value buffers bodies up to 1 MiB in
// memory with a 60 s idle timeout, a minimum average rate of 240 bytes/s
// after 5 s, and no total deadline.
type Options struct {
	// MaxBytes is the largest body accepted; larger bodies get 413.
	// 0 means DefaultMaxBytes (1 MiB); -1 means no limit.
	MaxBytes int64

	// MemBytes is how many bytes of one body are held in memory. A larger
	// body spools to an unlinked temporary file in Dir. 0 means
	// DefaultMemBytes, capped at MaxBytes. The heap held by bodies is at
	// most (uploads in progress + handlers running) × MemBytes, rounded up
	// to a power of two.
	MemBytes int64

	// Dir is the directory for spooled bodies; "" means os.TempDir().
	Dir string

	// IdleTimeout bounds the time between two successful reads, not the
	// whole body; a client that sends nothing for that long gets 408.
	// The deadline is refreshed lazily, so the actual bound lies between
	// IdleTimeout and 9/8 × IdleTimeout. 0 means DefaultIdleTimeout (60 s);
	// negative means no idle timeout.
	IdleTimeout time.Duration

	// Timeout, if positive, bounds the whole body read from the moment the
	// middleware starts reading; past it the client gets 408. A deadline
	// of the request context bounds the read the same way.
	Timeout time.Duration

	// MinRate is the lowest average upload rate, in bytes per second,
	// counted from the moment the middleware starts reading. Once
	// MinRateGrace has passed, a client whose body has arrived at a lower
	// average rate gets 408: a client trickling a few bytes now and then
	// is cut off even though no single gap reaches IdleTimeout. 0 means
	// DefaultMinRate (240 bytes/s); negative disables the check.
	MinRate int64

	// MinRateGrace is how long an upload may run before MinRate applies.
	// 0 means DefaultMinRateGrace (5 s); negative means no grace.
	MinRateGrace time.Duration

	// Skip, if set, lets a request pass through unbuffered when it returns
	// true (for streaming endpoints). Requests with no body, Upgrade or
	// CONNECT requests, gRPC and text/event-stream always pass through.
	Skip func(*http.Request) bool

	// Reject, if set, replaces the default 413, 408, 400 and 500
	// responses. On HTTP/1.x, Connection: close is already set when it
	// runs (the header values are its own to change); Cause(r) tells why.
	// It is not called for clients that are gone.
	Reject http.Handler
}

// A Buffer reads request bodies fully before passing requests on. Create
// it with New; it is safe for concurrent use by multiple goroutines.
type Buffer struct {
	maxBytes int64 // -1: no limit
	memBytes int64
	dir      string
	lim      limits
	skip     func(*http.Request) bool
	reject   http.Handler
	tooLarge *http.MaxBytesError

	c counters
}

// New returns a Buffer configured by o. It panics if a field is out of
// range: MaxBytes < -1 or MemBytes < 0.
func New(o Options) *Buffer {
	if o.MaxBytes < -1 {
		panic("bodybuffer: MaxBytes must be >= -1")
	}
	if o.MemBytes < 0 {
		panic("bodybuffer: MemBytes must be >= 0")
	}
	b := &Buffer{maxBytes: o.MaxBytes, memBytes: o.MemBytes, dir: o.Dir,
		lim:  limits{idle: o.IdleTimeout, total: o.Timeout, rate: o.MinRate, grace: o.MinRateGrace},
		skip: o.Skip, reject: o.Reject}
	if b.maxBytes == 0 {
		b.maxBytes = DefaultMaxBytes
	}
	if b.memBytes == 0 {
		b.memBytes = DefaultMemBytes
	}
	if b.maxBytes >= 0 && b.memBytes > b.maxBytes {
		b.memBytes = b.maxBytes
	}
	if b.dir == "" {
		b.dir = os.TempDir()
	}
	switch {
	case b.lim.idle == 0:
		b.lim.idle = DefaultIdleTimeout
	case b.lim.idle < 0:
		b.lim.idle = 0
	}
	b.lim.total = max(b.lim.total, 0)
	switch {
	case b.lim.rate == 0:
		b.lim.rate = DefaultMinRate
	case b.lim.rate < 0:
		b.lim.rate = 0
	}
	switch {
	case b.lim.grace == 0:
		b.lim.grace = DefaultMinRateGrace
	case b.lim.grace < 0:
		b.lim.grace = 0
	}
	b.tooLarge = &http.MaxBytesError{Limit: b.maxBytes}
	return b
}

// Limit returns a middleware that buffers bodies up to maxBytes (0 means
// 1 MiB) with the other defaults of Options. It is the one-line form of
// New(Options{MaxBytes: maxBytes}).Handler.
func Limit(maxBytes int64) func(http.Handler) http.Handler {
	return New(Options{MaxBytes: maxBytes}).Handler
}

// Handler returns a middleware that reads each request body fully before
// calling next.
//
// Sent: 413 (body over MaxBytes), 408 (IdleTimeout, MinRate, Timeout or
// the request context's deadline passed), 400 (truncated or malformed
// body) and 500 (a spool file could not be written), each with
// Content-Type: text/plain; charset=utf-8 and a short fixed body, or
// whatever Reject writes. On HTTP/1.x a refusal also carries
// Connection: close, and the connection closes shortly after the
// response: net/http may still read what is left of the body for a short
// grace, so that a client still uploading reads the answer rather than a
// reset, however slowly it sends. On HTTP/2 only the refused stream ends;
// the connection and its other streams go on. For a client that is gone
// (connection closed, stream reset, context canceled) nothing is written:
// Handler panics with http.ErrAbortHandler, which makes net/http drop the
// response without logging (close the connection, reset the stream);
// middlewares outside see that panic and should let it through.
//
// What next sees: a shallow copy of the request (the caller's
// *http.Request is never modified), with Body an in-memory (or spooled)
// reader over the complete body, ContentLength its length,
// TransferEncoding nil and GetBody returning a fresh reader over the same
// bytes. The body stays valid until next returns; next may hand it on
// (to an http.Transport, which may read and close it after next
// returned), but a read that starts after next returned fails with an
// error, and its memory and spool file are released once the last read
// in progress ends. Files of a multipart form that next parses are
// removed when it returns. The ResponseWriter reaches next untouched, so
// every optional interface survives.
//
// Timeouts need a ResponseWriter whose read deadline can be set through
// http.ResponseController (net/http's own, for HTTP/1 and HTTP/2, and
// wrappers with Unwrap); with any other writer bodies are read with no
// time bound (a context deadline still turns into 408 once the read
// ends). The deadlines replace http.Server.ReadTimeout for the body.
func (b *Buffer) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.serve(w, r, next)
	})
}
