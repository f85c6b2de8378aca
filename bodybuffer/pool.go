package bodybuffer

import (
	"math/bits"
	"sync"
)

// Body buffers come from power-of-two size classes, 1 KiB to 4 MiB, one
// sync.Pool per class, so a buffer sized from Content-Length is reused by
// bodies of about the same size. Larger buffers are never pooled: the pool
// must not pin huge slices.
const (
	minClassShift = 10 // 1 KiB
	maxClassShift = 22 // 4 MiB
)

var bufPools [maxClassShift - minClassShift + 1]sync.Pool

// classCap returns the capacity of the class that holds n bytes.
func classCap(n int64) int64 {
	if n <= 1<<minClassShift {
		return 1 << minClassShift
	}
	return 1 << bits.Len64(uint64(n-1))
}

// getBuf returns a buffer whose length is at least n, pooled when n fits
// a class. The *[]byte is what goes back to the pool, so Put allocates
// nothing.
func getBuf(n int64) *[]byte {
	c := classCap(n)
	shift := bits.TrailingZeros64(uint64(c))
	if shift > maxClassShift {
		b := make([]byte, n)
		return &b
	}
	if p, _ := bufPools[shift-minClassShift].Get().(*[]byte); p != nil {
		return p
	}
	b := make([]byte, c)
	return &b
}

// putBuf returns p to its class pool; buffers of no class are dropped.
func putBuf(p *[]byte) {
	c := int64(cap(*p))
	if c < 1<<minClassShift || c > 1<<maxClassShift || c&(c-1) != 0 {
		return
	}
	*p = (*p)[:c]
	bufPools[bits.TrailingZeros64(uint64(c))-minClassShift].Put(p)
}
