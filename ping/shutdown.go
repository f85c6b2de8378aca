package ping

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// ServeUntil runs serve (srv.ListenAndServe, or a closure calling
// srv.Serve(ln)) until ctx is done, then shuts srv down without losing a
// request:
//
//  1. Drain: the ready path answers 503, responses carry Connection:
//     close, an Agent answers "drain" (skipped if already draining);
//  2. keep serving for DrainDelay, so every load balancer notices and
//     stops sending;
//  3. srv.Shutdown: stop listening, close idle connections and wait for
//     the requests in flight, at most ShutdownTimeout, after which
//     srv.Close cuts the rest.
//
// It returns nil after a clean shutdown, the error of serve if serve
// fails before ctx is done (http.ErrServerClosed counts as failure only
// then), or the error of Shutdown. Use signal.NotifyContext for ctx to
// run the sequence on SIGTERM. srv must be the server that serve runs,
// and its Handler should include c.Handler.
func (c *Checker) ServeUntil(ctx context.Context, srv *http.Server, serve func() error) error {
	errc := make(chan error, 1)
	go func() { errc <- serve() }()

	select {
	case err := <-errc:
		if err == nil {
			err = errors.New("ping: serve returned before shutdown")
		}
		return err
	case <-ctx.Done():
	}

	if c.State() == Ready {
		c.Drain()
	}
	if c.drainDelay > 0 {
		t := time.NewTimer(c.drainDelay)
		select {
		case <-t.C:
		case err := <-errc:
			// The server died while draining; there is nothing left to
			// shut down gracefully.
			t.Stop()
			return err
		}
	}

	sctx := context.WithoutCancel(ctx)
	if c.shutdownTimeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(sctx, c.shutdownTimeout)
		defer cancel()
	}
	err := srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
	}
	// serve returns http.ErrServerClosed as soon as Shutdown closes the
	// listeners; wait for it so its goroutine never outlives the call.
	if serr := <-errc; err == nil && serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = serr
	}
	return err
}
