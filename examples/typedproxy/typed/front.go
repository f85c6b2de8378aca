package typed

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
)

// FrontOptions configures a Front. Zero fields mean the documented defaults.
type FrontOptions struct {
	// Addr is the upstream's TCP address, host:port. Required.
	Addr string

	// MaxConns bounds the connections to the upstream, open or dialing.
	// A request that finds all of them busy waits for one until its
	// deadline. Default 64.
	MaxConns int

	// Timeout bounds each request's whole exchange: waiting for a
	// connection, dialing, writing the request and reading the response.
	// An earlier deadline on the request's context wins. Default 10s.
	Timeout time.Duration

	// MaxFrameSize bounds the request and response frames in bytes, and
	// so the request body (413 above it) and the response body (502).
	// Default frame.DefaultMaxSize (4 MiB).
	MaxFrameSize int

	// Headers names further request headers to forward, all their values,
	// beside the typed ones (Content-Type, Accept, X-Request-Id). Default none.
	Headers []string

	// Version returns the request's API version. Default VersionFromPath.
	Version func(*http.Request) int32

	// NoBufferPool allocates every frame buffer afresh instead of
	// recycling it; it exists to measure what the pool saves.
	NoBufferPool bool

	// Dial opens a connection to the upstream. Default net.Dialer.DialContext.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// A Front is an http.Handler that forwards each request to a typed
// upstream (Server) as one frame and writes the framed response back.
//
// It answers with the upstream's status (200–599), Content-Type and body,
// plus Content-Length. It answers itself, with a short text/plain body:
// 400 when the request target or a forwarded header is not valid UTF-8
// or the body cannot be read; 413 when the request does not fit
// MaxFrameSize; 502 when the upstream cannot be reached, breaks the
// connection, sends a bad frame or a status outside 200–599, or when the
// client went away first; 504 when Timeout (or the request's deadline)
// passes while waiting for a connection, dialing, writing or reading. A
// connection that failed in any way is closed, never reused. An idempotent
// request that fails on a reused connection before any response byte
// arrived (the upstream closed it while idle) is retried on another one.
//
// The handler reads the whole request body before forwarding it and never
// keeps w, r or their buffers after returning. Front works with any
// ResponseWriter; it uses only Header, WriteHeader and Write. It is safe
// for concurrent use by multiple goroutines.
type Front struct {
	pool     *pool
	bufs     *frame.Pool
	timeout  time.Duration
	maxFrame int
	headers  []string
	version  func(*http.Request) int32

	requests, forwarded, rejected atomic.Uint64
	badGateway, gatewayTimeout    atomic.Uint64
	canceled, retries             atomic.Uint64
}

// NewFront returns a Front for o. It panics if o.Addr is empty or a limit
// is negative.
func NewFront(o FrontOptions) *Front {
	switch {
	case o.Addr == "":
		panic("typed: FrontOptions.Addr must be set")
	case o.MaxConns < 0:
		panic("typed: MaxConns must be >= 0")
	case o.Timeout < 0:
		panic("typed: Timeout must be >= 0")
	case o.MaxFrameSize < 0:
		panic("typed: MaxFrameSize must be >= 0")
	}
	f := &Front{timeout: o.Timeout, maxFrame: o.MaxFrameSize, version: o.Version}
	if o.MaxConns == 0 {
		o.MaxConns = 64
	}
	if f.timeout == 0 {
		f.timeout = 10 * time.Second
	}
	if f.maxFrame == 0 {
		f.maxFrame = frame.DefaultMaxSize
	}
	if f.version == nil {
		f.version = VersionFromPath
	}
	if o.Dial == nil {
		o.Dial = (&net.Dialer{}).DialContext
	}
	if !o.NoBufferPool {
		f.bufs = new(frame.Pool)
	}
	for _, h := range o.Headers {
		f.headers = append(f.headers, http.CanonicalHeaderKey(h))
	}
	f.pool = newPool(o.Addr, o.MaxConns, o.Dial)
	return f
}

// Close closes the idle upstream connections now and the busy ones as
// their exchanges end. Requests after Close get 502. Close returns nil.
func (f *Front) Close() error {
	f.pool.close()
	return nil
}

// FrontStats are a Front's counters since it was created.
type FrontStats struct {
	Requests       uint64 // requests handled
	Forwarded      uint64 // answered with the upstream's response
	Rejected       uint64 // answered 400 or 413 before reaching the upstream
	BadGateway     uint64 // answered 502 (client still there)
	GatewayTimeout uint64 // answered 504
	Canceled       uint64 // the client went away during the exchange
	Retries        uint64 // stale reused connections retried
	Dials          uint64 // connections dialed
	Open           int64  // connections open or dialing now
	Idle           int64  // of which idle in the pool
}

// Stats returns the current counters.
func (f *Front) Stats() FrontStats {
	open, idle := f.pool.counts()
	return FrontStats{
		Requests: f.requests.Load(), Forwarded: f.forwarded.Load(), Rejected: f.rejected.Load(),
		BadGateway: f.badGateway.Load(), GatewayTimeout: f.gatewayTimeout.Load(),
		Canceled: f.canceled.Load(), Retries: f.retries.Load(), Dials: f.pool.dials.Load(),
		Open: open, Idle: idle,
	}
}

// VersionFromPath returns N for a path that starts with "/vN/" or is
// "/vN", and 0 otherwise.
func VersionFromPath(r *http.Request) int32 {
	p := r.URL.Path
	if len(p) < 3 || p[0] != '/' || p[1] != 'v' {
		return 0
	}
	i := 2
	for i < len(p) && i < 12 && p[i] >= '0' && p[i] <= '9' {
		i++
	}
	if i == 2 || (i < len(p) && p[i] != '/') {
		return 0
	}
	n, err := strconv.ParseInt(p[2:i], 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}
