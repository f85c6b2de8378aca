package shed

import (
	"context"
	"net/http"

	"github.com/frontdoor-go/frontdoor/internal/prioritize"
	"github.com/frontdoor-go/frontdoor/priority"
)

// levels is the state of a Shedder with Options.Priority or Tenant.
type levels struct {
	gate     prioritize.Gate
	classify priority.Classifier // nil: every request is priority.Default
	tenant   func(*http.Request) string
}

// TryAcquireLevel is TryAcquire for work of level l: with Options.Priority
// the lowest levels are refused first, so a level is admitted only while,
// counted in, it leaves free the places that the levels above it need.
// Those places follow the recent demand of the levels above, so a level
// that nobody above competes with may fill the whole limit; when the
// levels above need the whole limit, the levels below get nothing.
//
// Every TryAcquireLevel that returns true must be followed by exactly one
// ReleaseLevel with the same level. Without Options.Priority and
// Options.Tenant, the level is ignored: it is TryAcquire.
func (s *Shedder) TryAcquireLevel(l priority.Level) bool {
	if s.levels == nil {
		return s.TryAcquire()
	}
	return s.tryAcquire(l, 0)
}

// ReleaseLevel gives back the place taken by a successful
// TryAcquireLevel(l).
func (s *Shedder) ReleaseLevel(l priority.Level) {
	if s.levels == nil {
		s.counter.Dec()
		return
	}
	s.levels.gate.Release(s.counter, l, 0)
}

func (s *Shedder) tryAcquire(l priority.Level, key uint64) bool {
	if !s.levels.gate.TryAcquire(s.counter, s.lim(), l, key) {
		s.refused.Add(1)
		if s.ctl != nil {
			s.ctl.Bound()
		}
		return false
	}
	s.admitted.Add(1)
	return true
}

// releaseLevel gives back the place of a request of level l and tenant
// key that Handler admitted, with token from the controller of a limit
// that finds itself, and tells the controller it completed.
func (s *Shedder) releaseLevel(l priority.Level, key uint64, token int64, ctx context.Context) {
	s.levels.gate.Release(s.counter, l, key)
	s.ctl.Done(token, ctx)
}

// levelHandler is Handler with Options.Priority or Tenant.
func (s *Shedder) levelHandler(next http.Handler) http.Handler {
	lv := s.levels
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.exempt != nil && s.exempt(r) {
			s.exempted.Add(1)
			next.ServeHTTP(w, r)
			return
		}
		l := priority.Default
		if lv.classify != nil {
			l = lv.classify(r)
		}
		var key uint64
		if lv.tenant != nil {
			key = prioritize.Key(lv.tenant(r))
		}
		if !s.tryAcquire(l, key) {
			prioritize.SetHeader(w.Header(), l, s.reject == nil)
			s.refuse(w, r)
			return
		}
		if s.ctl != nil {
			defer s.releaseLevel(l, key, s.ctl.Start(s.admitted.Load()), r.Context())
		} else {
			defer lv.gate.Release(s.counter, l, key)
		}
		next.ServeHTTP(w, r)
	})
}
