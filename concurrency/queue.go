package concurrency

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// A waiter is one queued request. Its state changes only under Limiter.mu.
type waiter struct {
	prev, next *waiter
	ready      chan struct{} // closed when state leaves waiting
	state      uint8
}

const (
	waiting uint8 = iota
	granted       // a slot was taken on the waiter's behalf
	evicted       // pushed out of a full LIFO queue by a newer request
)

// queue is an intrusive doubly linked list: push at the back, take from
// either end, remove from the middle in O(1).
type queue struct {
	head, tail *waiter
	n          int
}

func (q *queue) push(w *waiter) {
	w.prev, w.next = q.tail, nil
	if q.tail != nil {
		q.tail.next = w
	} else {
		q.head = w
	}
	q.tail = w
	q.n++
}

func (q *queue) remove(w *waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		q.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		q.tail = w.prev
	}
	w.prev, w.next = nil, nil
	q.n--
}

// next returns the waiter to serve first: the oldest for FIFO, the newest
// for LIFO.
func (l *Limiter) nextLocked() *waiter {
	if l.order == LIFO {
		return l.q.tail
	}
	return l.q.head
}

// grantLocked takes free slots on behalf of waiters, in queue order. It
// reports whether it granted any.
func (l *Limiter) grantLocked() bool {
	handed := false
	for l.q.n > 0 && l.running.TryInc(l.lim()) {
		w := l.nextLocked()
		l.q.remove(w)
		w.state = granted
		close(w.ready)
		handed = true
	}
	l.syncLocked()
	return handed
}

// syncLocked publishes the queue length.
func (l *Limiter) syncLocked() {
	l.queued.Store(int64(l.q.n))
}

// acquire waits for a slot. It reports true when the request holds one and
// must run; otherwise it has already answered (or, for a client that left,
// deliberately not answered) the request.
func (l *Limiter) acquire(w http.ResponseWriter, r *http.Request) bool {
	ctx := r.Context()
	if ctx.Err() != nil {
		l.ended(w, r)
		return false
	}
	now := time.Now()
	if l.ctl != nil {
		l.ctl.Bound()
	}

	l.mu.Lock()
	if l.q.n == 0 && l.running.TryInc(l.lim()) {
		l.mu.Unlock()
		return true
	}
	budget := l.waitBudgetLocked(ctx, now)
	pos := l.q.n + 1
	if l.order == LIFO {
		pos = 1
	}
	// A request that finds nobody waiting waits out its budget whatever
	// the estimate says: only a request that waits is timed, so refusing
	// it on the estimate alone could keep a stale estimate alive, and the
	// cost of a wrong estimate is then one waiter, not every newcomer.
	if budget <= 0 || l.q.n > 0 && l.estimate(pos) > budget {
		l.mu.Unlock()
		l.overBudget.Add(1)
		l.refuse(w, r)
		return false
	}
	if l.q.n == 0 {
		l.busySince = now
	}
	if l.q.n >= l.queueCap() {
		if l.order != LIFO || l.q.n == 0 {
			l.mu.Unlock()
			l.full.Add(1)
			l.refuse(w, r)
			return false
		}
		old := l.q.head
		l.q.remove(old)
		old.state = evicted
		close(old.ready)
	}
	wt := &waiter{ready: make(chan struct{})}
	l.q.push(wt)
	l.syncLocked()
	// Retry after publishing: a release that ran before we were visible
	// freed a slot that nobody would hand us.
	l.grantLocked()
	l.mu.Unlock()

	timer := time.NewTimer(budget)
	left := false
	select {
	case <-wt.ready:
	case <-timer.C:
		left = true
	case <-ctx.Done():
		left = true
	}
	timer.Stop()
	if left {
		l.mu.Lock()
		if wt.state == waiting {
			l.q.remove(wt)
			l.syncLocked()
		}
		l.mu.Unlock()
	}
	waited := time.Since(now)
	l.wait.Observe(int64(waited))
	if l.ctl != nil {
		l.ctl.Waited(waited)
	}

	if wt.state == granted {
		if ctx.Err() == nil {
			return true // granted, possibly just as the timer fired: run it
		}
		l.free() // pass the slot on without touching the service time
	}
	switch {
	case ctx.Err() != nil:
		l.ended(w, r)
	case wt.state == evicted:
		l.full.Add(1)
		l.refuse(w, r)
	default:
		l.timedOut.Add(1)
		l.refuse(w, r)
	}
	return false
}

// ended answers a request whose context ended before it could run. A
// deadline that passed is a timeout: the client may well be connected and
// waiting (the deadline may come from a middleware or a per-route budget),
// so it gets the refusal. A canceled context means the client went away:
// nothing is written.
func (l *Limiter) ended(w http.ResponseWriter, r *http.Request) {
	if deadlinePassed(r.Context()) {
		l.timedOut.Add(1)
		l.refuse(w, r)
		return
	}
	l.abandoned.Add(1)
}

// deadlinePassed reports whether ctx ended because of a deadline, given as
// its error or as the cause of its cancellation.
func deadlinePassed(ctx context.Context) bool {
	return errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		errors.Is(context.Cause(ctx), context.DeadlineExceeded)
}

// waitBudgetLocked returns how long a request arriving at now may wait:
// QueueTimeout, cut to its context deadline less the estimated service
// time, and cut to CoDelTarget while a standing queue persists: one that
// has been non-empty without a break for longer than CoDelInterval. (The
// last moment the queue was seen empty would not do: after an idle period
// it is long past, and a burst would start with a cut budget.)
func (l *Limiter) waitBudgetLocked(ctx context.Context, now time.Time) time.Duration {
	b := l.timeout
	if dl, ok := ctx.Deadline(); ok {
		if rem := dl.Sub(now) - l.ServiceTime(); rem < b {
			b = rem
		}
	}
	if l.target > 0 && l.q.n > 0 && b > l.target && now.Sub(l.busySince) > l.interval {
		b = l.target
	}
	return b
}
