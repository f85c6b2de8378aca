package concurrency

import (
	"context"
	"sync/atomic"
	"time"
)

// releaser returns the release func of a caller with context ctx (nil for
// none) that has just taken a slot: the first call frees it, later calls
// do nothing.
func (l *Limiter) releaser(ctx context.Context) func() {
	var released atomic.Bool
	if l.ctl != nil {
		token := l.ctl.Start(l.admitted.Load())
		return func() {
			if released.CompareAndSwap(false, true) {
				l.doneSampled(token, ctx)
			}
		}
	}
	start := l.started()
	return func() {
		if released.CompareAndSwap(false, true) {
			l.done(start)
		}
	}
}

// started is called by a caller that has just taken a slot. The service
// time matters only when callers may have to wait, so it is timed only
// while every slot is taken: started returns the time now then, and the
// zero time otherwise, so that a limiter far below its limit does not pay
// for the clock and the shared average.
func (l *Limiter) started() time.Time {
	if l.running.Load() < l.lim() {
		return time.Time{}
	}
	return time.Now()
}

// done records the duration of a caller that started at start (unless
// start is zero) and frees its slot.
func (l *Limiter) done(start time.Time) {
	if !start.IsZero() {
		l.observe(time.Since(start))
	}
	l.free()
}

// doneSampled is done for a limit that finds itself: the controller times
// the requests it samples, and those timings feed the service time too,
// so the slot holders pay for no clock of the Limiter's own.
func (l *Limiter) doneSampled(token int64, ctx context.Context) {
	if d := l.ctl.Done(token, ctx); d > 0 {
		l.observe(d)
	}
	l.free()
}

// free gives back one slot and hands it to a waiter if there is one.
func (l *Limiter) free() {
	l.running.Dec()
	// A waiter publishes itself in queued before its last TryInc, so either
	// it sees the slot freed above or we see it here (no lost wake-up).
	if l.queued.Load() != 0 {
		l.mu.Lock()
		handed := l.grantLocked()
		refresh := false
		if handed {
			l.handoffs++
			refresh = l.handoffs%procsEvery == 0
		}
		l.mu.Unlock()
		if handed {
			l.stepAside(refresh)
		}
	}
}

// procsEvery is how many handoffs use a cached GOMAXPROCS before it is
// read again. runtime.GOMAXPROCS takes the scheduler's global lock, too
// dear for every handoff; but GOMAXPROCS can change at run time, so a
// change is followed within procsEvery handoffs.
const procsEvery = 64

// stepAside runs on the goroutine of a caller that has just handed its
// slot to a waiter. The runtime made the waiter runnable next on this P;
// yielding lets the waiter's handler start at once, on this thread, while
// what remains of the finished request (writing out its response) moves to
// a P that Limit leaves free. Without such a P the finished request would
// wait behind a handler for its response, so then it goes on here.
// refresh asks it to read GOMAXPROCS anew first.
func (l *Limiter) stepAside(refresh bool) {
	if refresh {
		l.procs.Store(int64(l.maxprocs()))
	}
	if l.lim() < l.procs.Load() {
		l.gosched()
	}
}

// grantLocked takes free slots on behalf of waiters, in queue order: the
// highest level first and, within a level, the oldest for FIFO, the newest
// for LIFO. It reports whether it granted any.
func (l *Limiter) grantLocked() bool {
	handed := false
	for l.q.Len() > 0 && l.running.TryInc(l.lim()) {
		w := l.q.Pop(l.order == LIFO).Value
		w.state = granted
		close(w.ready)
		handed = true
	}
	l.syncLocked()
	return handed
}

// syncLocked publishes the queue length.
func (l *Limiter) syncLocked() {
	l.queued.Store(int64(l.q.Len()))
}
