package concurrency

import (
	"context"
	"sync/atomic"
	"time"
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
// Unlike Handler, which runs a request that finds a free slot whatever its
// context, Acquire never takes a slot for a context that is already done,
// so a loop around it ends when its context does.
func (l *Limiter) Acquire(ctx context.Context) (release func(), err error) {
	var why Reason
	ok := false
	if ctx.Err() != nil {
		why, ok = l.ended(ctx)
	} else {
		why, ok = l.acquire(ctx)
	}
	if !ok {
		if why == 0 {
			return nil, ctx.Err()
		}
		return nil, &RefusedError{Reason: why, RetryAfter: time.Duration(l.RetryAfter()) * time.Second}
	}
	return l.releaser(), nil
}

// TryAcquire takes a slot if one is free and nobody waits, without
// waiting. It reports ok, and release as for Acquire, when it took one. A
// failed TryAcquire is not counted as a refusal: the caller decides what
// it means (it may call Acquire next).
func (l *Limiter) TryAcquire() (release func(), ok bool) {
	if l.queued.Load() != 0 || !l.running.TryInc(l.limit) {
		return nil, false
	}
	l.admitted.Add(1)
	return l.releaser(), true
}

// releaser returns the release func of a caller that has just taken a
// slot: the first call frees it, later calls do nothing.
func (l *Limiter) releaser() func() {
	start := l.started()
	var released atomic.Bool
	return func() {
		if released.CompareAndSwap(false, true) {
			l.done(start)
		}
	}
}
