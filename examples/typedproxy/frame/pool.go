package frame

import "sync"

// keepMax is the largest buffer a Pool keeps: one large body must not pin
// megabytes in every P's cache for the life of the process.
const keepMax = 64 << 10

// A Pool recycles byte buffers for frames. The zero value is an empty pool
// ready to use. A nil *Pool is valid too and pools nothing: Get returns an
// empty buffer and Put drops it, which is how the examples measure what the
// pool saves.
//
// A Pool is safe for concurrent use by multiple goroutines. It must not be
// copied after first use.
type Pool struct {
	p sync.Pool
}

// Get returns a buffer of length 0. Store the slice you built back into
// *b before calling Put, so a grown array is the one recycled.
func (p *Pool) Get() *[]byte {
	if p == nil {
		return new([]byte)
	}
	if b, ok := p.p.Get().(*[]byte); ok {
		*b = (*b)[:0]
		return b
	}
	b := make([]byte, 0, 4096)
	return &b
}

// Put returns b to the pool. Buffers over 64 KiB are dropped. Nothing may
// use *b, or any slice of it, after Put.
func (p *Pool) Put(b *[]byte) {
	if p == nil || b == nil || cap(*b) > keepMax || cap(*b) == 0 {
		return
	}
	p.p.Put(b)
}
