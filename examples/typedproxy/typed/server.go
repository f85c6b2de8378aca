package typed

import (
	"bufio"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
)

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("typed: server closed")

// A HandlerFunc answers one typed request by filling in w, which arrives
// with Status 200 and nothing else set. r.Body and everything r points to
// are valid only until the handler returns; so must w.Body stay valid
// until then (a shared read-only slice is fine).
type HandlerFunc func(w *frame.Response, r *frame.Request)

// A Server is the typed upstream: it reads request frames from each
// connection, runs Handler on each in turn and writes one response frame
// for each. Set the fields before Serve; the zero values are the defaults.
//
// A connection is closed, and the process goes on serving the others,
// when a frame is longer than MaxFrameSize, does not decode, is truncated,
// or does not arrive in time, and when Handler panics. A response that
// does not fit MaxFrameSize is replaced by a 500 with an empty body.
//
// A Server is safe for concurrent use by multiple goroutines.
type Server struct {
	Handler HandlerFunc

	// MaxFrameSize bounds request and response frames. Default
	// frame.DefaultMaxSize (4 MiB).
	MaxFrameSize int

	// IdleTimeout bounds the wait for the first byte of the next request
	// on a connection. Default 2 minutes.
	IdleTimeout time.Duration

	// ReadTimeout bounds reading the rest of a frame once it started, and
	// WriteTimeout writing a response. Default 10 seconds each.
	ReadTimeout, WriteTimeout time.Duration

	// NoBufferPool allocates frame buffers afresh for each request.
	NoBufferPool bool

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]struct{}
	closed    bool
	wg        sync.WaitGroup
	pool      frame.Pool

	requests, badFrames, panics atomic.Uint64
}

// ServerStats are a Server's counters since it was created.
type ServerStats struct {
	Requests  uint64 // frames answered
	BadFrames uint64 // connections closed for an oversized, malformed or truncated frame
	Panics    uint64 // connections closed because Handler panicked
	Conns     int64  // connections open now
}

// Stats returns the current counters.
func (s *Server) Stats() ServerStats {
	s.mu.Lock()
	n := len(s.conns)
	s.mu.Unlock()
	return ServerStats{Requests: s.requests.Load(), BadFrames: s.badFrames.Load(), Panics: s.panics.Load(), Conns: int64(n)}
}

// Serve accepts connections on l and serves each in its own goroutine
// until Close. It returns ErrServerClosed after Close, or the listener's
// error if it fails otherwise; transient Accept errors (too many open
// files) are retried with backoff.
func (s *Server) Serve(l net.Listener) error {
	if s.Handler == nil {
		panic("typed: Server.Handler must be set")
	}
	if !s.track(l, nil, true) {
		l.Close()
		return ErrServerClosed
	}
	defer s.track(l, nil, false)
	var backoff time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if !s.track(nil, c, true) {
			c.Close()
			return ErrServerClosed
		}
		go s.serveConn(c)
	}
}

// Close closes the listeners and every connection, and waits for the
// connection goroutines to end. Requests in a handler finish, but their
// responses are not delivered. Close returns nil.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for l := range s.listeners {
		l.Close()
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// track adds or removes a listener or a connection; adding fails after Close.
func (s *Server) track(l net.Listener, c net.Conn, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if add && s.closed {
		return false
	}
	if s.listeners == nil {
		s.listeners = map[net.Listener]struct{}{}
		s.conns = map[net.Conn]struct{}{}
	}
	switch {
	case l != nil && add:
		s.listeners[l] = struct{}{}
	case l != nil:
		delete(s.listeners, l)
	case add:
		s.conns[c] = struct{}{}
		s.wg.Add(1)
	default:
		delete(s.conns, c)
		s.wg.Done()
	}
	return true
}

func (s *Server) serveConn(c net.Conn) {
	defer s.track(nil, c, false)
	defer c.Close()
	defer func() {
		if recover() != nil {
			s.panics.Add(1) // the handler's state is unknown: drop the connection
		}
	}()
	maxFrame, idle, readT, writeT := s.MaxFrameSize, s.IdleTimeout, s.ReadTimeout, s.WriteTimeout
	if maxFrame == 0 {
		maxFrame = frame.DefaultMaxSize
	}
	if idle == 0 {
		idle = 2 * time.Minute
	}
	if readT == 0 {
		readT = 10 * time.Second
	}
	if writeT == 0 {
		writeT = 10 * time.Second
	}
	bufs := &s.pool
	if s.NoBufferPool {
		bufs = nil
	}
	br := bufio.NewReaderSize(c, 4096)
	var req frame.Request
	var resp frame.Response
	for {
		c.SetReadDeadline(time.Now().Add(idle))
		if _, err := br.Peek(1); err != nil {
			return // closed, idle too long, or Close
		}
		c.SetReadDeadline(time.Now().Add(readT))
		if !s.serveOne(c, br, bufs, maxFrame, writeT, &req, &resp) {
			return
		}
	}
}

// serveOne reads one request, runs the handler and writes the response.
// It reports whether the connection may carry another request.
func (s *Server) serveOne(c net.Conn, br *bufio.Reader, bufs *frame.Pool, maxFrame int, writeT time.Duration, req *frame.Request, resp *frame.Response) bool {
	in := bufs.Get()
	defer bufs.Put(in)
	p, err := frame.Read(br, (*in)[:0], maxFrame)
	*in = p
	if err == nil {
		err = req.Unmarshal(p)
	}
	if err != nil {
		s.badFrames.Add(1)
		return false
	}
	resp.Reset()
	resp.Status = 200
	s.Handler(resp, req)
	s.requests.Add(1)

	out := bufs.Get()
	defer bufs.Put(out)
	f := resp.Append(frame.Begin((*out)[:0]))
	if frame.End(f, maxFrame) != nil {
		*resp = frame.Response{Status: 500}
		f = resp.Append(frame.Begin(f[:0]))
		frame.End(f, maxFrame)
	}
	*out = f
	c.SetWriteDeadline(time.Now().Add(writeT))
	_, err = c.Write(f)
	return err == nil
}
