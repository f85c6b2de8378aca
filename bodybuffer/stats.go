package bodybuffer

import (
	"sync/atomic"

	"github.com/frontdoor-go/frontdoor/internal/histogram"
	"github.com/frontdoor-go/frontdoor/internal/peak"
)

// Stats is a snapshot of a Buffer's counters. Totals count since New.
type Stats struct {
	Buffered    uint64 // bodies read completely and handed to next
	Bytes       uint64 // body bytes read from clients, whatever the outcome
	Spilled     uint64 // bodies larger than MemBytes, spooled to a file
	Refused     uint64 // answered without running next: TooLarge + TimedOut + Canceled + Truncated + SpoolErrors
	TooLarge    uint64 // 413: over MaxBytes, declared or read
	TimedOut    uint64 // 408: IdleTimeout, MinRate, Timeout or context deadline
	Canceled    uint64 // 503: request context canceled while the client was still connected
	Truncated   uint64 // 400: body ended early or malformed framing
	SpoolErrors uint64 // 500: the temporary file could not be written
	ClientGone  uint64 // client closed or reset before next could run; nothing answered
	Passed      uint64 // passed to next untouched (Upgrade, gRPC, Exempt...)

	Reading int64 // bodies being read now
	MemHeld int64 // bytes of body buffers held now (reading, in next, or read by what next handed the body to)
	MemPeak int64 // highest MemHeld since New
	Sizes   Histogram
}

// Histogram is a distribution of the sizes, in bytes, of the bodies
// handed to next. Counts are per bucket, not cumulative: Counts[i] counts
// sizes n with Bounds[i-1] < n <= Bounds[i], and the last element, one
// past Bounds, those above every bound. Count and Sum cover all buckets.
type Histogram = histogram.Snapshot

// sizeBounds are the upper bounds of the size histogram: 1 KiB to 64 MiB
// by factors of 4.
var sizeBounds = []float64{1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26}

type counters struct {
	buffered, bytes, spilled, tooLarge, timedOut atomic.Uint64
	canceled, clientGone, truncated              atomic.Uint64
	spoolErrors, passed                          atomic.Uint64
	reading, memHeld, memPeak                    atomic.Int64
	sizes                                        *histogram.Histogram // in bytes
}

// holdMem notes d more (or, negative, fewer) bytes of buffer held.
func (c *counters) holdMem(d int64) {
	peak.Raise(&c.memPeak, c.memHeld.Add(d))
}

// Stats returns a snapshot of the counters. Each field is read atomically;
// the fields together are not one instant.
func (b *Buffer) Stats() Stats {
	c := &b.c
	s := Stats{
		Buffered: c.buffered.Load(), Bytes: c.bytes.Load(), Spilled: c.spilled.Load(),
		TooLarge: c.tooLarge.Load(), TimedOut: c.timedOut.Load(), Canceled: c.canceled.Load(),
		ClientGone: c.clientGone.Load(),
		Truncated:  c.truncated.Load(), SpoolErrors: c.spoolErrors.Load(), Passed: c.passed.Load(),
		Reading: c.reading.Load(), MemHeld: c.memHeld.Load(), MemPeak: c.memPeak.Load(),
		Sizes: c.sizes.Snapshot(),
	}
	s.Refused = s.TooLarge + s.TimedOut + s.Canceled + s.Truncated + s.SpoolErrors
	return s
}
