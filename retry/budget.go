package retry

import (
	"sync"
	"time"
)

// budgetSpan is how long a request, or a retry, counts in the retry
// budget: Finagle's default TTL.
const budgetSpan = 10 * time.Second

// budget is Finagle's retry budget: over any budgetSpan, retries may
// number at most ratio × the requests sent plus reserve, where reserve is
// the minimum rate × budgetSpan. The reserve lets a client that has just
// started, or that sends few requests, retry at all; the ratio bounds
// what retries add to the load when many requests fail at once.
//
// Finagle keeps deposits and withdrawals in a leaky token bucket; the same
// arithmetic is kept here as two counts in a window of one-second buckets.
type budget struct {
	ratio   float64 // retries per request; 0: none beyond the reserve
	reserve float64 // retries always allowed per budgetSpan

	mu sync.Mutex
	w  window // n[0]: requests, n[1]: retries
}

func newBudget(ratio, minRate float64, now time.Time) *budget {
	return &budget{
		ratio:   ratio,
		reserve: minRate * budgetSpan.Seconds(),
		w:       newWindow(budgetSpan, time.Second, now),
	}
}

// deposit counts a request sent for the first time.
func (b *budget) deposit(now time.Time) {
	b.mu.Lock()
	b.w.add(now, 1, 0)
	b.mu.Unlock()
}

// withdraw reports whether the budget allows one more retry at now, and if
// it does, counts it.
func (b *budget) withdraw(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.left(now) < 1 {
		return false
	}
	b.w.add(now, 0, 1)
	return true
}

// available returns how many retries the budget allows at now.
func (b *budget) available(now time.Time) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(b.left(now), 0)
}

func (b *budget) left(now time.Time) float64 {
	requests, retries := b.w.sum(now)
	return b.ratio*float64(requests) + b.reserve - float64(retries)
}
