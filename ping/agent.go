package ping

import (
	"errors"
	"io"
	"math/bits"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
)

// ErrAgentClosed is returned by ServeAgent after Close.
var ErrAgentClosed = errors.New("ping: agent closed")

// AgentOptions configures an Agent. The zero value reports "up ready"
// with no weight.
type AgentOptions struct {
	// Checker supplies the state: Ready answers "up ready N%", Draining
	// answers "drain", Maint answers "maint". Nil means always Ready.
	Checker *Checker
	// Counter and Limit supply the load: the weight is the free share of
	// Limit, 100% when idle, down to MinWeight when Counter reaches Limit.
	// Usually the Counter shared with shed, and shed's limit. Nil means no
	// weight is reported (HAProxy keeps the last one).
	Counter *inflight.Counter
	Limit   int64
	// MinWeight is the weight, in percent, reported at full load, so a busy
	// server still gets a share (0% would mean drain). Zero means 1.
	MinWeight int
	// Timeout bounds each agent connection. Zero means 2s.
	Timeout time.Duration
}

// An Agent answers HAProxy's agent-check on its own TCP port: one line per
// connection, such as "up ready 75%\n", "drain\n" or "maint\n", so HAProxy
// sends less to a busy server and nothing to a draining one. Configure
// HAProxy with "agent-check agent-port P agent-inter 1s" on the server
// line, beside a regular "check" (the agent cannot report a dead process).
//
// Because the agent answers "ready" whenever its Checker is Ready, it
// undoes a DRAIN or MAINT set on the HAProxy CLI; run "disable agent" on
// the CLI first to take a server out by hand.
//
// Create it with NewAgent; the zero value is not usable. An Agent is safe
// for concurrent use by multiple goroutines.
type Agent struct {
	chk     *Checker
	counter *inflight.Counter
	limit   int64
	minW    int64
	timeout time.Duration

	mu     sync.Mutex
	lns    map[net.Listener]struct{}
	closed bool
	done   chan struct{} // closed by Close, ends a pause between accepts
	conns  sync.WaitGroup
}

// NewAgent returns an Agent configured by opts. It panics if Counter is
// set and Limit is not positive, or if MinWeight is outside 0..100.
func NewAgent(opts AgentOptions) *Agent {
	if opts.Counter != nil && opts.Limit <= 0 {
		panic("ping: AgentOptions.Limit must be > 0 with a Counter")
	}
	if opts.MinWeight < 0 || opts.MinWeight > 100 {
		panic("ping: AgentOptions.MinWeight must be in 0..100")
	}
	if opts.Timeout < 0 {
		panic("ping: AgentOptions.Timeout must be >= 0")
	}
	a := &Agent{
		chk:     opts.Checker,
		counter: opts.Counter,
		limit:   opts.Limit,
		minW:    int64(opts.MinWeight),
		timeout: opts.Timeout,
		lns:     make(map[net.Listener]struct{}),
		done:    make(chan struct{}),
	}
	if a.minW == 0 {
		a.minW = 1
	}
	if a.timeout == 0 {
		a.timeout = 2 * time.Second
	}
	return a
}

// Reply returns the line the agent sends now, newline included.
func (a *Agent) Reply() string {
	return string(a.appendReply(make([]byte, 0, 32)))
}

func (a *Agent) appendReply(b []byte) []byte {
	s := Ready
	if a.chk != nil {
		s = a.chk.State()
	}
	if s != Ready {
		return append(append(b, s.String()...), '\n')
	}
	b = append(b, "up ready"...)
	if a.counter != nil {
		b = append(b, ' ')
		b = strconv.AppendInt(b, a.weight(a.counter.Load()), 10)
		b = append(b, '%')
	}
	return append(b, '\n')
}

// weight is the free share of the limit in percent, rounded down, at
// least minW. The product 100 × free is taken in 128 bits: in 64 it
// wraps for limits above MaxInt64/100.
func (a *Agent) weight(n int64) int64 {
	free := uint64(min(max(a.limit-n, 0), a.limit))
	hi, lo := bits.Mul64(100, free)
	w, _ := bits.Div64(hi, lo, uint64(a.limit)) // hi < limit: free <= limit
	return min(max(int64(w), a.minW), 100)
}

// ServeAgent accepts agent-check connections on ln and answers each one,
// until Close; then it returns ErrAgentClosed. An Accept error that may
// pass (too many open files, the kernel short of buffers or memory, a
// timeout) is retried after a pause that doubles from 5ms up to 1s, as
// net/http's Server does, so the agent outlives the overload it reports.
// Any other Accept error, such as the listener closed by someone else, is
// returned as is. ln is closed when ServeAgent returns.
func (a *Agent) ServeAgent(ln net.Listener) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		ln.Close()
		return ErrAgentClosed
	}
	a.lns[ln] = struct{}{}
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.lns, ln)
		a.mu.Unlock()
		ln.Close()
	}()

	var pause time.Duration
	for {
		conn, err := ln.Accept()
		if err != nil {
			a.mu.Lock()
			closed := a.closed
			a.mu.Unlock()
			if closed {
				return ErrAgentClosed
			}
			if !retryable(err) {
				return err
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			t := time.NewTimer(pause)
			select {
			case <-t.C:
			case <-a.done:
				t.Stop()
				return ErrAgentClosed
			}
			continue
		}
		pause = 0
		a.mu.Lock()
		if a.closed {
			a.mu.Unlock()
			conn.Close()
			return ErrAgentClosed
		}
		a.conns.Add(1)
		a.mu.Unlock()
		go func() {
			defer a.conns.Done()
			a.serveConn(conn)
		}()
	}
}

// retryable reports whether an Accept error may pass: what net/http's
// Server retries (errors that say they are temporary, such as EMFILE, and
// timeouts), and the kernel running out of buffers or memory (ENOBUFS,
// ENOMEM), which an overloaded server may meet too.
func retryable(err error) bool {
	if errors.Is(err, net.ErrClosed) {
		return false
	}
	var te interface{ Temporary() bool }
	if errors.As(err, &te) && te.Temporary() {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, e := range exhausted {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// serveConn answers one agent check. HAProxy may send an agent-send
// string first; the reply does not depend on it, so the agent writes at
// once, half-closes, and then reads and discards what the client sent
// (bounded), so that closing never resets the connection before the
// client has read the reply.
func (a *Agent) serveConn(conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(a.timeout))
	var buf [64]byte
	if _, err := conn.Write(a.appendReply(buf[:0])); err != nil {
		return
	}
	if cw, ok := conn.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	io.CopyN(io.Discard, conn, 4096)
}

// Close stops every ServeAgent call and waits for the connections being
// answered to finish. It returns nil.
func (a *Agent) Close() error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.done)
	}
	for ln := range a.lns {
		ln.Close()
	}
	a.mu.Unlock()
	a.conns.Wait()
	return nil
}
