package adaptive

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/frontdoor-go/frontdoor/inflight"
)

// The admission path with a fixed limit (one atomic load, TryInc, the
// admitted count, Dec) beside the same path with the controller (Limit,
// Start, Done), from every P. The difference is the controller's cost per request.
func BenchmarkAdmission(b *testing.B) {
	ctx := context.Background()
	b.Run("fixed", func(b *testing.B) {
		var limit atomic.Int64
		limit.Store(1 << 20)
		var in inflight.Counter
		var admitted atomic.Uint64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if in.TryInc(limit.Load()) {
					admitted.Add(1)
					in.Dec()
				}
			}
		})
	})
	b.Run("adaptive", func(b *testing.B) {
		var in inflight.Counter
		c := New(Config{InFlight: in.Load})
		var admitted atomic.Uint64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if in.TryInc(c.Limit()) {
					t := c.Start(admitted.Add(1))
					in.Dec()
					c.Done(t, ctx)
				}
			}
		})
	})
}
