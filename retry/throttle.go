package retry

import (
	"sync"
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
)

// The adaptive throttle's window and bounds.
const (
	// throttleSpan is the window the throttle counts attempts in. The SRE
	// book keeps two minutes; a shorter window reacts sooner: when every
	// attempt is refused, throttling starts after (1 − 1/K) of the window
	// (15 s for K = 2), and after the server accepts again it fades out
	// within about two windows, as the accepts of the attempts it still
	// lets through fill the window.
	throttleSpan = 30 * time.Second
	// throttleMin is the fewest attempts in the window with which the
	// throttle refuses anything: one failed call of a client that sends
	// a few requests a minute says nothing about overload.
	throttleMin = 10
	// throttleMax caps the probability of a local refusal, so that a
	// tenth of the attempts still reach the server and see it recover;
	// without it a client that sees nothing but refusals keeps refusing
	// for many windows after the server is back.
	throttleMax = 0.9
)

// levelK scales K by level: a level's own K is 1 + (K − 1) × levelK, so a
// level is throttled once fewer than 1/K of recent attempts are accepted,
// with its own K. With K = 2 that is below 80% accepted for Sheddable,
// 67% for SheddablePlus, 50% for Critical (the SRE book's formula as it
// is) and 33% for CriticalPlus.
var levelK = [priority.NumLevels]float64{0.25, 0.5, 1, 2}

// throttle is the client-side adaptive throttling of Google's SRE book
// ("Handling Overload"): an attempt is refused locally, before it is
// sent, with probability max(0, (requests − K·accepts) / (requests + 1))
// over the last throttleSpan, where requests counts every attempt the
// client wanted to make (those refused locally too) and accepts the
// answers that were not refusals.
type throttle struct {
	k [priority.NumLevels]float64 // per level; nil throttle: off

	mu sync.Mutex
	w  window // n[0]: requests, n[1]: accepts
}

func newThrottle(k float64, now time.Time) *throttle {
	t := &throttle{w: newWindow(throttleSpan, time.Second, now)}
	for i := range t.k {
		t.k[i] = 1 + (k-1)*levelK[i]
	}
	return t
}

// admit reports whether an attempt of level l may be sent at now, and
// the probability of a local refusal it was judged with; roll is a random
// number in [0, 1). An attempt refused is counted as a request at once;
// one sent is counted by done when its outcome is known.
func (t *throttle) admit(l priority.Level, now time.Time, roll float64) (float64, bool) {
	if t == nil {
		return 0, true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	requests, accepts := t.w.sum(now)
	p := t.probability(l, requests, accepts)
	if roll >= p {
		return p, true
	}
	t.w.add(now, 1, 0)
	return p, false
}

// done counts an attempt that was sent, accepted or not.
func (t *throttle) done(now time.Time, accepted bool) {
	if t == nil {
		return
	}
	var a uint64
	if accepted {
		a = 1
	}
	t.mu.Lock()
	t.w.add(now, 1, a)
	t.mu.Unlock()
}

// probabilities returns the probability of a local refusal at now for
// each level, in Index order.
func (t *throttle) probabilities(now time.Time) (p [priority.NumLevels]float64) {
	if t == nil {
		return p
	}
	t.mu.Lock()
	requests, accepts := t.w.sum(now)
	t.mu.Unlock()
	for i, l := range priority.Levels() {
		p[i] = t.probability(l, requests, accepts)
	}
	return p
}

func (t *throttle) probability(l priority.Level, requests, accepts uint64) float64 {
	if requests < throttleMin {
		return 0
	}
	r := float64(requests)
	p := (r - t.k[l.Index()]*float64(accepts)) / (r + 1)
	return min(max(p, 0), throttleMax)
}

// ThrottledError is the error RoundTrip returns for a request that the
// adaptive throttle refused locally: it was not sent. Callers find it
// with errors.As, also through the *url.Error of an http.Client.
type ThrottledError struct {
	// Level is the request's level, from priority.FromContext.
	Level priority.Level
	// Probability is the probability of a local refusal that the request
	// was refused with.
	Probability float64
}

func (e *ThrottledError) Error() string {
	return "retry: request refused locally by adaptive throttling (level " + e.Level.String() + ")"
}
