package shed

import "github.com/frontdoor-go/frontdoor/priority"

// TryAcquire takes a place for one unit of work if, counted in, it keeps
// the in-flight count at or below the limit, and reports whether it did.
// It never blocks. It is the admission Handler uses, for callers outside
// HTTP: a gRPC interceptor, a job loop.
//
// Every TryAcquire that returns true must be followed by exactly one
// Release, once the work is done, also when it panics (defer Release). A
// TryAcquire that returns false takes nothing: do not call Release.
// Options.Exempt does not apply: a caller whose work should not count
// simply does not call TryAcquire. Reject is not called either; the caller
// answers the refusal its own way.
//
// Stats counts a true result in Admitted and a false one in Refused, as
// for requests. With Options.Priority it is TryAcquireLevel of
// priority.Default.
func (s *Shedder) TryAcquire() bool {
	if s.levels != nil {
		return s.TryAcquireLevel(priority.Default)
	}
	if !s.counter.TryInc(s.lim()) {
		s.refused.Add(1)
		if s.ctl != nil {
			s.ctl.Bound()
		}
		return false
	}
	s.admitted.Add(1)
	return true
}

// Release gives back the place taken by a successful TryAcquire. Calling
// it more often than TryAcquire succeeded is a bug: Release panics if the
// count would go below zero, and on a Counter shared with others it gives
// away a place another caller holds.
func (s *Shedder) Release() {
	if s.levels != nil {
		s.ReleaseLevel(priority.Default)
		return
	}
	s.counter.Dec()
}
