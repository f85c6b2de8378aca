package bodybuffer

import (
	"math/bits"
	"sync/atomic"
)

// Stats is a snapshot of a Buffer's counters. Totals count since New.
type Stats struct {
	Buffered    uint64 // bodies read completely and handed to next
	Bytes       uint64 // body bytes read from clients, whatever the outcome
	Spilled     uint64 // bodies larger than MemBytes, spooled to a file
	TooLarge    uint64 // 413: over MaxBytes, declared or read
	TimedOut    uint64 // 408: IdleTimeout, MinRate, Timeout or context deadline
	ClientGone  uint64 // client closed or reset before next could run
	Truncated   uint64 // 400: body ended early or malformed framing
	SpoolErrors uint64 // 500: the temporary file could not be written
	Passed      uint64 // streamed through unbuffered (Upgrade, gRPC, Skip...)

	Reading int64 // bodies being read now
	MemHeld int64 // bytes of body buffers held now (reading, in next, or read by what next handed the body to)
	MemPeak int64 // highest MemHeld since New
	Sizes   Histogram
}

// Histogram is a distribution of body sizes in bytes, for the bodies
// handed to next. Counts[i] counts sizes in (Bounds[i-1], Bounds[i]];
// the last entry, Counts[len(Bounds)], counts sizes above every bound.
// Counts are per bucket, not cumulative; Count and Sum cover all buckets.
type Histogram struct {
	Bounds []float64
	Counts []uint64
	Count  uint64
	Sum    float64
}

// sizeBounds are the histogram's upper bounds: 1 KiB to 64 MiB by 4.
var sizeBounds = [...]float64{1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26}

type counters struct {
	buffered, bytes, spilled, tooLarge, timedOut atomic.Uint64
	clientGone, truncated, spoolErrors, passed   atomic.Uint64
	reading, memHeld, memPeak                    atomic.Int64
	sizes                                        sizeHist
}

type sizeHist struct {
	counts [len(sizeBounds) + 1]atomic.Uint64
	sum    atomic.Uint64
}

// observe records a size n: bucket i holds sizes up to 1 KiB << 2i, found
// from the bit length of n-1 rather than by a search.
func (h *sizeHist) observe(n int64) {
	i := 0
	if n > 1<<10 {
		i = (bits.Len64(uint64(n-1)) - 10 + 1) / 2
	}
	if i > len(sizeBounds) {
		i = len(sizeBounds)
	}
	h.counts[i].Add(1)
	h.sum.Add(uint64(n))
}

// holdMem notes d more (or, negative, fewer) bytes of buffer held.
func (c *counters) holdMem(d int64) {
	n := c.memHeld.Add(d)
	for {
		p := c.memPeak.Load()
		if n <= p || c.memPeak.CompareAndSwap(p, n) {
			return
		}
	}
}

// Stats returns a snapshot of the counters. Each field is read atomically;
// the fields together are not one instant.
func (b *Buffer) Stats() Stats {
	c := &b.c
	s := Stats{
		Buffered: c.buffered.Load(), Bytes: c.bytes.Load(), Spilled: c.spilled.Load(),
		TooLarge: c.tooLarge.Load(), TimedOut: c.timedOut.Load(), ClientGone: c.clientGone.Load(),
		Truncated: c.truncated.Load(), SpoolErrors: c.spoolErrors.Load(), Passed: c.passed.Load(),
		Reading: c.reading.Load(), MemHeld: c.memHeld.Load(), MemPeak: c.memPeak.Load(),
	}
	s.Sizes.Bounds = append([]float64(nil), sizeBounds[:]...)
	s.Sizes.Counts = make([]uint64, len(c.sizes.counts))
	for i := range c.sizes.counts {
		s.Sizes.Counts[i] = c.sizes.counts[i].Load()
		s.Sizes.Count += s.Sizes.Counts[i]
	}
	s.Sizes.Sum = float64(c.sizes.sum.Load())
	return s
}
