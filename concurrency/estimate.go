package concurrency

import (
	"time"

	"github.com/frontdoor-go/frontdoor/internal/retryafter"
)

// The service-time estimate drives both refusal at once and Retry-After.
// Like TCP's retransmission timer it keeps a moving average of the handler
// duration and of its mean deviation, and plans with average + 2 ×
// deviation: when durations jump (another process takes the CPU, a cache
// goes cold) the estimate grows at once with the deviation, so admitted
// requests rarely wait out their whole budget only to be refused then.
//
// One sample counts for at most twice the current plan. Without that cap a
// single slow request among fast ones (a cold cache, a GC pause, one huge
// page) pulls the plan up to a large share of its own duration, and
// requests are refused on that plan until enough admitted ones have
// pulled it back; with the cap, one sample at most doubles the plan, and
// a lasting rise is followed at up to a doubling per request.

// observe folds a handler duration into the averages (weights 1/8 and 1/4).
func (l *Limiter) observe(d time.Duration) {
	n := max(int64(d), 1)
	old := l.svc.Load()
	if old == 0 {
		l.svc.Store(n)
		l.svcDev.Store(n / 2)
		return
	}
	dev := l.svcDev.Load()
	n = min(n, 2*max(old+2*dev, 1))
	diff := n - old
	l.svc.Add(diff / 8)
	l.svcDev.Add((abs(diff) - dev) / 4)
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// ServiceTime returns the moving average of the duration of next, 0 before
// the first request completes.
func (l *Limiter) ServiceTime() time.Duration { return time.Duration(l.svc.Load()) }

// planned is the service time used to plan waits: average + 2 × deviation.
func (l *Limiter) planned() int64 {
	return max(l.svc.Load()+2*l.svcDev.Load(), 0)
}

// estimate returns the longest expected wait of the request at 1-based
// place pos in line: ceil(pos/Limit) rounds of the planned service time.
// It is a bound rather than a mean (the running requests may have just
// started), so that an admitted request rarely waits out its budget.
func (l *Limiter) estimate(pos int) time.Duration {
	lim := l.lim()
	rounds := (int64(pos) + lim - 1) / lim
	return time.Duration(rounds * l.planned())
}

// meanWait returns the mean expected wait of the request at 1-based place
// pos in line: pos/Limit of the average service time. With priorities it
// judges a request that has waiters of lower levels behind it (see wait).
func (l *Limiter) meanWait(pos int) time.Duration {
	return time.Duration(int64(pos) * l.svc.Load() / l.lim())
}

// maxRetryAfter caps the Retry-After header, in seconds: the estimate
// looks at most a minute ahead, well within retryafter.Max.
const maxRetryAfter = 60

// RetryAfter returns the Retry-After a refusal would carry now: the
// estimated time for the queue to drain plus one service time, in whole
// seconds rounded up, at least 1 and at most 60.
func (l *Limiter) RetryAfter() int {
	ns := (l.queued.Load()/l.lim() + 1) * l.planned()
	return int(min(retryafter.Seconds(time.Duration(ns)), maxRetryAfter))
}
