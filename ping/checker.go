package ping

import (
	"cmp"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/retryafter"
)

// Defaults of Options; a zero field means its default.
const (
	// DefaultBody is the body of a 200 health-check answer.
	DefaultBody = "ok\n"
	// DefaultRetryAfter is sent with the ready path's 503 while draining.
	DefaultRetryAfter = time.Second
	// DefaultDrainDelay is HAProxy's default check interval (inter 2s)
	// times its default fall count (3): the time HAProxy needs to see a
	// drain through a plain HTTP check.
	DefaultDrainDelay = 6 * time.Second
	// DefaultShutdownTimeout bounds the wait for requests in flight once
	// ServeUntil stops listening. With DefaultDrainDelay it stays within
	// the 30s Kubernetes gives a pod between SIGTERM and SIGKILL.
	DefaultShutdownTimeout = 20 * time.Second
)

// Options configures a Checker. The zero value answers no path and uses
// the defaults above.
type Options struct {
	// ReadyPath answers 200 while ready and 503 while draining, so a load
	// balancer checking it stops sending traffic. Empty means none.
	ReadyPath string
	// LivePath answers 200 while the process runs, draining or not (a
	// Kubernetes liveness probe). Empty means none.
	LivePath string
	// Body is the body of a 200 answer. Empty means DefaultBody.
	Body string
	// RetryAfter is sent with the 503 of the ready path while draining,
	// in whole seconds rounded up, at most one day. Zero means
	// DefaultRetryAfter; a negative value panics.
	RetryAfter time.Duration
	// DrainDelay is how long ServeUntil keeps serving after it starts to
	// drain and before it stops listening: long enough for every load
	// balancer to see the drain (HAProxy: the agent-inter, or inter × fall
	// for an HTTP check). Zero means DefaultDrainDelay; -1 means no delay;
	// any other negative value panics.
	DrainDelay time.Duration
	// ShutdownTimeout bounds how long ServeUntil waits for requests in
	// flight after it stops listening; when it passes, the remaining
	// connections are closed. DrainDelay plus ShutdownTimeout should stay
	// below the time the process manager waits before it kills the
	// process. Zero means DefaultShutdownTimeout; -1 means wait for every
	// request; any other negative value panics.
	ShutdownTimeout time.Duration
}

// A Checker answers health checks and holds the drain state of one
// server. Create it with New; the zero value is not usable. A Checker is
// safe for concurrent use by multiple goroutines.
type Checker struct {
	ready, live       string
	okBody, drainBody []byte
	okLen, drainLen   []string
	retryAfter        []string
	drainDelay        time.Duration // 0: none
	shutdownTimeout   time.Duration // 0: none

	state                    atomic.Int32
	liveN, readyN, notReadyN atomic.Uint64
}

// New returns a Checker configured by opts, in state Ready. It panics,
// with a message starting "ping: ", if a path does not start with "/",
// if both paths are the same, or if a duration is negative other than
// as Options allows.
func New(opts Options) *Checker {
	for _, p := range []string{opts.ReadyPath, opts.LivePath} {
		if p != "" && p[0] != '/' {
			panic("ping: paths must start with \"/\"")
		}
	}
	if opts.ReadyPath != "" && opts.ReadyPath == opts.LivePath {
		panic("ping: ReadyPath and LivePath must differ")
	}
	if opts.RetryAfter < 0 {
		panic("ping: RetryAfter must be >= 0")
	}
	body := cmp.Or(opts.Body, DefaultBody)
	const drainBody = "draining\n"
	return &Checker{
		ready:           opts.ReadyPath,
		live:            opts.LivePath,
		okBody:          []byte(body),
		drainBody:       []byte(drainBody),
		okLen:           []string{strconv.Itoa(len(body))},
		drainLen:        []string{strconv.Itoa(len(drainBody))},
		retryAfter:      []string{retryafter.Value(cmp.Or(opts.RetryAfter, DefaultRetryAfter))},
		drainDelay:      orNone(opts.DrainDelay, DefaultDrainDelay, "ping: DrainDelay must be >= -1"),
		shutdownTimeout: orNone(opts.ShutdownTimeout, DefaultShutdownTimeout, "ping: ShutdownTimeout must be >= -1"),
	}
}

// orNone returns def for 0, 0 (none) for -1 and d for any positive d; it
// panics with msg for any other negative d.
func orNone(d, def time.Duration, msg string) time.Duration {
	switch {
	case d == 0:
		return def
	case d == -1:
		return 0
	case d < 0:
		panic(msg)
	}
	return d
}

// Stats counts the health checks a Checker answered.
type Stats struct {
	Live     uint64 // live path answers (always 200)
	Ready    uint64 // ready path answered 200
	NotReady uint64 // ready path answered 503 (draining)
	State    State  // state at the time of the call
}

// Stats returns the counters of c, each read atomically.
func (c *Checker) Stats() Stats {
	return Stats{
		Live:     c.liveN.Load(),
		Ready:    c.readyN.Load(),
		NotReady: c.notReadyN.Load(),
		State:    c.State(),
	}
}
