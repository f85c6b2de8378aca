package inflight

import (
	"sync/atomic"

	"github.com/frontdoor-go/frontdoor/internal/peak"
)

// A Counter counts requests in flight and remembers the highest count it
// has reached (its peak). The zero value is a valid Counter at 0.
//
// A Counter is safe for concurrent use by multiple goroutines. It must not
// be copied after first use.
type Counter struct {
	n    atomic.Int64
	peak atomic.Int64
}

// Inc adds one to the count, whatever its value, and returns the new count.
func (c *Counter) Inc() int64 {
	n := c.n.Add(1)
	peak.Raise(&c.peak, n)
	return n
}

// TryInc adds one to the count only if the count is below limit, and
// reports whether it did. Check and increment are one compare-and-swap, so
// under any burst the count never passes limit, not even for an instant.
// A limit of 0 or less admits nothing.
func (c *Counter) TryInc(limit int64) bool {
	for {
		n := c.n.Load()
		if n >= limit {
			return false
		}
		if c.n.CompareAndSwap(n, n+1) {
			peak.Raise(&c.peak, n+1)
			return true
		}
	}
}

// Dec subtracts one from the count and returns the new count. Every
// successful Inc or TryInc must be matched by exactly one Dec; Dec panics
// if the count would go below zero, since that is a bookkeeping bug that
// would otherwise silently raise every limit. Check and decrement are one
// compare-and-swap, so a Dec that panics never changes the count, not
// even for an instant: it cannot let a concurrent TryInc pass the limit.
func (c *Counter) Dec() int64 {
	for {
		n := c.n.Load()
		if n <= 0 {
			panic("inflight: Dec without a matching Inc")
		}
		if c.n.CompareAndSwap(n, n-1) {
			return n - 1
		}
	}
}

// Load returns the current count.
func (c *Counter) Load() int64 { return c.n.Load() }

// Peak returns the highest count reached since the Counter was created or
// since the last ResetPeak.
func (c *Counter) Peak() int64 { return c.peak.Load() }

// ResetPeak sets the peak to the current count and returns the peak it
// replaces, so a caller can read the high-water mark of each interval.
// Increments concurrent with the call are counted in the peak it returns
// and, if their requests are still in flight, in the new one: once
// ResetPeak returns, the peak is never below the count.
func (c *Counter) ResetPeak() int64 {
	old := c.peak.Swap(c.n.Load())
	// An increment between the Load and the Swap saw the old, higher
	// peak and left it alone; raise the new peak to the count it left.
	peak.Raise(&c.peak, c.n.Load())
	return old
}
