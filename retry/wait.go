package retry

import (
	"context"
	"net/http"
	"time"
)

// wait returns how long to wait before retry number n (1 for the first
// retry) of an attempt that ended with resp (nil after an error), and
// false if no wait fits: the server asked for more than maxWait, or the
// shortest wait would reach the context's deadline. roll is a random
// number in [0, 1).
//
// A Retry-After is waited in full, plus a random half of it, but at least
// up to one backoff more, so that clients refused together do not come
// back together. Without one, the wait is backoff × 2^(n−1), capped at
// maxWait, of which a random half ("equal jitter"). The longest wait is
// cut to maxWait and to the time the deadline leaves.
func (s *state) wait(ctx context.Context, n int, resp *http.Response, now time.Time, roll float64) (time.Duration, bool) {
	var lo, hi time.Duration
	ra, ok := time.Duration(0), false
	if resp != nil {
		ra, ok = parseRetryAfter(resp.Header.Get("Retry-After"), now)
	}
	if ok {
		lo = ra
		hi = lo + max(lo/2, s.backoff)
	} else {
		d := min(s.backoff, s.maxWait)
		for i := 1; i < n && d < s.maxWait; i++ {
			d = min(d, s.maxWait/2) * 2 // never overflows
		}
		lo, hi = d/2, d
	}
	if lo > s.maxWait {
		return 0, false
	}
	hi = min(hi, s.maxWait)
	if deadline, ok := ctx.Deadline(); ok {
		left := deadline.Sub(now)
		if lo >= left {
			return 0, false
		}
		hi = min(hi, left)
	}
	return lo + time.Duration(roll*float64(hi-lo)), true
}

// sleep waits d, or until ctx ends, whichever comes first; it returns the
// context's cause if ctx ended first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
