package concurrency

import (
	"context"
	"errors"
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
)

// Acquire takes a slot for a caller outside HTTP (a gRPC interceptor, a
// job loop), by the same rules as Handler: if no slot is free it waits in
// the queue, or is refused at once when the queue is full or its estimated
// wait exceeds its wait budget, or is refused when its budget runs out.
//
// On success it returns release, which the caller must call once when its
// work is done; calling release again does nothing (it never frees a
// second slot). On failure release is nil and err is a *RefusedError (use
// errors.As), or ctx's error if ctx was canceled before a slot was taken.
// A context whose deadline passes (context.DeadlineExceeded, as error or
// as cause) is a refusal with Reason TimedOut, as for an HTTP request.
//
// With Options.Priority, the caller's level is that of ctx (see
// priority.WithLevel), priority.Default if it has none.
//
// Unlike Handler, which runs a request that finds a free slot whatever its
// context, Acquire never takes a slot for a context that is already done,
// so a loop around it ends when its context does.
func (l *Limiter) Acquire(ctx context.Context) (release func(), err error) {
	var why Reason
	ok := false
	switch {
	case ctx.Err() != nil:
		why, ok = l.ended(ctx)
		if l.levels != nil {
			lv, _ := priority.FromContext(ctx)
			l.levels.count(lv, why, ok)
		}
	case l.levels != nil:
		lv, _ := priority.FromContext(ctx)
		why, ok = l.acquireLevel(ctx, lv, 0)
	default:
		why, ok = l.acquire(ctx)
	}
	if !ok {
		if why == 0 {
			l.abandoned.Add(1)
			return nil, ctx.Err()
		}
		return nil, &RefusedError{Reason: why, RetryAfter: time.Duration(l.RetryAfter()) * time.Second}
	}
	return l.releaser(ctx), nil
}

// TryAcquire takes a slot if one is free and nobody waits, without
// waiting. It reports ok, and release as for Acquire, when it took one. A
// failed TryAcquire is not counted as a refusal: the caller decides what
// it means (it may call Acquire next). With Options.Priority, its slot is
// counted as priority.Default's.
func (l *Limiter) TryAcquire() (release func(), ok bool) {
	if l.queued.Load() != 0 || !l.running.TryInc(l.lim()) {
		return nil, false
	}
	l.admitted.Add(1)
	if l.levels != nil {
		l.levels.count(priority.Default, 0, true)
	}
	return l.releaser(nil), true
}

// acquire takes a slot for ctx, waiting in the queue if it must. It
// reports ok when the caller holds a slot (counted as admitted) and must
// release it with done. Otherwise why says why it was refused and counted
// so, or is 0 when ctx was canceled, not by a deadline: the caller counts
// that as abandoned or as a refusal (see ended).
//
// The fast path, nobody waiting and a slot free, is one load and one CAS.
func (l *Limiter) acquire(ctx context.Context) (why Reason, ok bool) {
	if l.queued.Load() == 0 && l.running.TryInc(l.lim()) {
		l.admitted.Add(1)
		return 0, true
	}
	return l.wait(ctx, priority.Default, 0)
}

// wait is acquire when the fast path failed: it queues, or refuses. lv and
// key are the caller's level and tenant (priority.Default and 0 without
// Options.Priority and Tenant, which makes the queue a single line).
func (l *Limiter) wait(ctx context.Context, lv priority.Level, key uint64) (why Reason, ok bool) {
	if ctx.Err() != nil {
		return l.ended(ctx)
	}
	now := time.Now()
	lifo := l.order == LIFO
	if l.ctl != nil {
		l.ctl.Bound()
	}

	l.mu.Lock()
	n := l.q.Len()
	if n == 0 && l.running.TryInc(l.lim()) {
		l.mu.Unlock()
		l.admitted.Add(1)
		return 0, true
	}
	budget := l.waitBudgetLocked(ctx, now)
	ahead := l.q.Ahead(lv, key, lifo)
	// A request that finds nobody waiting waits out its budget whatever
	// the estimate says: only a request that waits is timed, so refusing
	// it on the estimate alone could keep a stale estimate alive, and the
	// cost of a wrong estimate is then one waiter, not every newcomer.
	// With levels, so is a request that the next slots to come free will
	// serve (fewer than Limit ahead of it): its estimate is one round of
	// the pessimistic plan, and refusing a high level on that alone would
	// refuse the requests that priorities exist to serve.
	first := n == 0 || l.levels != nil && int64(ahead) < l.lim()
	// The estimate is a bound, so that a request rarely waits out its
	// budget in vain; but with levels, a request that has waiters of lower
	// levels behind it is one that priorities exist to serve: it is
	// judged on the mean wait, and if that was too hopeful it waits out
	// its budget and is refused then, still before a client timeout the
	// budget was set below.
	// A request whose estimate takes its whole budget is refused too:
	// with nothing left for the estimate's error it would most likely
	// wait out its budget and be refused late (the budget of a limit that
	// finds itself is a whole number of planned runs, and so is the
	// estimate).
	est := l.estimate
	if l.levels != nil && l.q.Below(lv) {
		est = l.meanWait
	}
	if budget <= 0 || !first && est(ahead+1) >= budget {
		l.mu.Unlock()
		l.overBudget.Add(1)
		return OverBudget, false
	}
	if n == 0 {
		l.busySince = now
	}
	if n >= l.queueCap() {
		// A newcomer pushes out a waiter of a lower level, or of its own
		// with LIFO or from a tenant with more waiters than its own;
		// otherwise it is refused.
		old := l.q.Victim(lv, key, lifo)
		if old == nil {
			l.mu.Unlock()
			l.full.Add(1)
			return QueueFull, false
		}
		l.q.Remove(old)
		old.Value.state = evicted
		close(old.Value.ready)
	}
	wt := &waiter{ready: make(chan struct{})}
	wt.node.Value, wt.node.Key = wt, key
	l.q.Push(&wt.node, lv)
	l.syncLocked()
	// Retry after publishing: a release that ran before we were visible
	// freed a slot that nobody would hand us.
	l.grantLocked()
	l.mu.Unlock()

	var expired <-chan time.Time
	if budget != noTimeout {
		timer := time.NewTimer(budget)
		defer timer.Stop()
		expired = timer.C
	}
	left := false
	select {
	case <-wt.ready:
	case <-expired:
		left = true
	case <-ctx.Done():
		left = true
	}
	if left {
		l.mu.Lock()
		if wt.state == waiting {
			l.q.Remove(&wt.node)
			l.syncLocked()
		}
		l.mu.Unlock()
	}
	waited := time.Since(now)
	l.waited.Observe(int64(waited))
	if l.ctl != nil {
		l.ctl.Waited(waited)
	}

	if wt.state == granted {
		if ctx.Err() == nil {
			l.admitted.Add(1)
			return 0, true // granted, possibly just as the timer fired: run it
		}
		l.free() // pass the slot on without touching the service time
	}
	switch {
	case ctx.Err() != nil:
		return l.ended(ctx)
	case wt.state == evicted:
		l.full.Add(1)
		return QueueFull, false
	default:
		l.timedOut.Add(1)
		return TimedOut, false
	}
}

// ended is the end of a caller whose context ended before it could run. A
// deadline that passed is a timeout: an HTTP client may well be connected
// and waiting (the deadline may come from a middleware or a per-route
// budget), so it is refused and counted so. A context canceled otherwise
// gives why 0, counted by the caller: Acquire counts it as abandoned, and
// Handler as abandoned only if its client is provably gone, as refused
// (Canceled) if not.
func (l *Limiter) ended(ctx context.Context) (why Reason, ok bool) {
	if deadlinePassed(ctx) {
		l.timedOut.Add(1)
		return TimedOut, false
	}
	return 0, false
}

// deadlinePassed reports whether ctx ended because of a deadline, given as
// its error or as the cause of its cancellation.
func deadlinePassed(ctx context.Context) bool {
	return errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		errors.Is(context.Cause(ctx), context.DeadlineExceeded)
}

// waitBudgetLocked returns how long a request arriving at now may wait:
// QueueTimeout (for a limit that finds itself, at most DefaultQueueRounds
// planned service times, each at most twice the average), cut to its
// context deadline less the estimated service time, and cut to CoDelTarget
// while a standing queue persists: one that has been non-empty without a
// break for longer than CoDelInterval. (The
// last moment the queue was seen empty would not do: after an idle period
// it is long past, and a burst would start with a cut budget.)
func (l *Limiter) waitBudgetLocked(ctx context.Context, now time.Time) time.Duration {
	b := l.timeout
	if svc := l.svc.Load(); l.rounds && svc > 0 {
		b = min(b, time.Duration(DefaultQueueRounds*min(l.planned(), 2*svc)))
	}
	if dl, ok := ctx.Deadline(); ok {
		if rem := dl.Sub(now) - l.ServiceTime(); rem < b {
			b = rem
		}
	}
	if l.target > 0 && l.q.Len() > 0 && b > l.target && now.Sub(l.busySince) > l.interval {
		b = l.target
	}
	return b
}
