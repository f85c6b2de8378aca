package metrics

import (
	"expvar"
	"sync"
)

var publishMu sync.Mutex

// Publish exports the value stats returns under name in the standard
// expvar package, so it appears as JSON at /debug/vars (expvar.Handler).
// stats is called at every read of the variable, not per request; pass a
// middleware's Stats method:
//
//	metrics.Publish("frontdoor.shed.api", func() any { return s.Stats() })
//
// expvar names are global to the process and expvar.Publish panics on a
// name already taken; Publish returns an error instead and leaves the
// existing variable in place. Names cannot be unpublished, so publish once,
// at start-up. It panics if stats is nil. Publish is safe for concurrent
// use by multiple goroutines.
func Publish(name string, stats func() any) error {
	if stats == nil {
		panic("metrics: Publish needs a non-nil stats func")
	}
	publishMu.Lock()
	defer publishMu.Unlock()
	if expvar.Get(name) != nil {
		return &DuplicateError{Name: name}
	}
	expvar.Publish(name, expvar.Func(stats))
	return nil
}

// A DuplicateError reports that Publish was given a name expvar already
// holds.
type DuplicateError struct {
	Name string
}

func (e *DuplicateError) Error() string {
	return "metrics: expvar name " + e.Name + " is already published"
}
