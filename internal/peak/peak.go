// Package peak keeps a high-water mark in an atomic integer.
package peak

import "sync/atomic"

// Raise sets *p to v if v is higher than *p. Concurrent calls leave *p at
// the highest v among them. When v is not higher, Raise costs one atomic
// load and writes nothing.
func Raise(p *atomic.Int64, v int64) {
	for {
		old := p.Load()
		if v <= old || p.CompareAndSwap(old, v) {
			return
		}
	}
}
