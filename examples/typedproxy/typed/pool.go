package typed

import (
	"bufio"
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"
)

// errPoolClosed is returned by get after Close.
var errPoolClosed = errors.New("typed: front closed")

// errPoolWait is returned when no connection freed up before the deadline.
var errPoolWait = errors.New("typed: timed out waiting for an upstream connection")

// A conn is one pooled upstream connection with its read buffer.
type conn struct {
	net.Conn
	br     *bufio.Reader
	reused bool // came from the idle list, so it may have gone stale
}

// A pool holds at most max connections to one address, open or dialing.
// Each one holds a token in sem for its whole life; idle ones wait in idle
// (with their token), so get never blocks while a connection is idle and
// put never blocks at all.
type pool struct {
	addr   string
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	sem    chan struct{}
	idle   chan *conn
	closed atomic.Bool
	dials  atomic.Uint64
}

func newPool(addr string, max int, dial func(context.Context, string, string) (net.Conn, error)) *pool {
	return &pool{addr: addr, dial: dial, sem: make(chan struct{}, max), idle: make(chan *conn, max)}
}

// get returns an idle connection, or dials a new one if fewer than max are
// open, or waits for one of those until ctx is done or deadline passes.
func (p *pool) get(ctx context.Context, deadline time.Time) (*conn, error) {
	if p.closed.Load() {
		return nil, errPoolClosed
	}
	// Fast path, no timer: an idle connection first, else room to dial.
	select {
	case c := <-p.idle:
		c.reused = true
		return c, nil
	default:
	}
	select {
	case p.sem <- struct{}{}:
		return p.open(ctx, deadline)
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case c := <-p.idle:
		c.reused = true
		return c, nil
	case p.sem <- struct{}{}:
		return p.open(ctx, deadline)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, errPoolWait
	}
}

// open dials a new connection; the caller holds a token for it.
func (p *pool) open(ctx context.Context, deadline time.Time) (*conn, error) {
	p.dials.Add(1)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	nc, err := p.dial(ctx, "tcp", p.addr)
	cancel()
	if err != nil {
		<-p.sem
		return nil, err
	}
	return &conn{Conn: nc, br: bufio.NewReaderSize(nc, 4096)}, nil
}

// put returns a healthy connection, after a complete exchange, for reuse.
func (p *pool) put(c *conn) {
	p.idle <- c // never blocks: cap(idle) == cap(sem)
	if p.closed.Load() {
		p.drain() // Close ran between our check and our send
	}
}

// drop closes a connection that failed or whose state is unknown; it is
// never reused.
func (p *pool) drop(c *conn) {
	c.Close()
	<-p.sem
}

// close closes idle connections now and busy ones as they come back.
func (p *pool) close() {
	p.closed.Store(true)
	p.drain()
}

func (p *pool) drain() {
	for {
		select {
		case c := <-p.idle:
			p.drop(c)
		default:
			return
		}
	}
}

// open and idle gauges.
func (p *pool) counts() (open, idle int64) { return int64(len(p.sem)), int64(len(p.idle)) }
