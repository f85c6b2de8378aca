package ping

import (
	"errors"
	"io"
	"net"
	"time"
)

// ErrAgentClosed is returned by ServeAgent after Close.
var ErrAgentClosed = errors.New("ping: agent closed")

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
