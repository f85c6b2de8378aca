package concurrency

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/frontdoor-go/frontdoor/internal/prioritize"
	"github.com/frontdoor-go/frontdoor/priority"
)

// levels is the state of a Limiter with Options.Priority or Tenant.
type levels struct {
	classify priority.Classifier // nil: every request is priority.Default
	tenant   func(*http.Request) string
	per      [priority.NumLevels]struct {
		admitted, refused atomic.Uint64
		_                 [48]byte // one cache line per level
	}
}

// count counts one caller of level lv admitted (ok) or refused (why != 0).
func (ls *levels) count(lv priority.Level, why Reason, ok bool) {
	p := &ls.per[lv.Index()]
	switch {
	case ok:
		p.admitted.Add(1)
	case why != 0:
		p.refused.Add(1)
	}
}

// acquireLevel is acquire for a caller of level lv and tenant key: the
// same fast path (a free slot with nobody waiting is anyone's), then the
// queue ordered by level.
func (l *Limiter) acquireLevel(ctx context.Context, lv priority.Level, key uint64) (why Reason, ok bool) {
	if l.queued.Load() == 0 && l.running.TryInc(l.lim()) {
		l.admitted.Add(1)
		ok = true
	} else {
		why, ok = l.wait(ctx, lv, key)
	}
	l.levels.count(lv, why, ok)
	return why, ok
}

// levelHandler is Handler with Options.Priority or Tenant.
func (l *Limiter) levelHandler(next http.Handler) http.Handler {
	ls := l.levels
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lv := priority.Default
		if ls.classify != nil {
			lv = ls.classify(r)
		}
		var key uint64
		if ls.tenant != nil {
			key = prioritize.Key(ls.tenant(r))
		}
		if why, ok := l.acquireLevel(r.Context(), lv, key); !ok {
			if why == 0 {
				l.canceled(w, r)
				ls.count(lv, Canceled, false)
			}
			prioritize.SetHeader(w.Header(), lv, l.reject == nil)
			l.refuse(w, r)
			return
		}
		l.serve(next, w, r)
	})
}
