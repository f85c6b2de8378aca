package concurrency

import "github.com/frontdoor-go/frontdoor/internal/prioritize"

// A waiter is one queued caller. Its state changes only under Limiter.mu.
type waiter struct {
	node  prioritize.Node[*waiter] // its place in Limiter.q
	ready chan struct{}            // closed when state leaves waiting
	state uint8
}

const (
	waiting uint8 = iota
	granted       // a slot was taken on the waiter's behalf
	evicted       // pushed out of a full queue by a newer or higher request
)
