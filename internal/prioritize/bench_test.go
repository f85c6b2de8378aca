package prioritize

import (
	"testing"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/priority"
)

// BenchmarkAdmit compares the admission of a request below the limit: a
// bare counter (today's shed) and a Gate, from every P.
func BenchmarkAdmit(b *testing.B) {
	const limit = 1 << 20 // never reached
	b.Run("counter", func(b *testing.B) {
		var c inflight.Counter
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if c.TryInc(limit) {
					c.Dec()
				}
			}
		})
	})
	b.Run("gate", func(b *testing.B) {
		var c inflight.Counter
		var g Gate
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				l := priority.Levels()[i%priority.NumLevels]
				i++
				if g.TryAcquire(&c, limit, l) {
					g.Release(&c, l)
				}
			}
		})
	})
}

// BenchmarkQueue pushes and serves waiters of mixed levels, as a limiter
// does under its lock.
func BenchmarkQueue(b *testing.B) {
	var q Queue[int]
	nodes := make([]Node[int], 32)
	for i := range nodes {
		q.Push(&nodes[i], priority.Levels()[i%priority.NumLevels])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		nd := q.Pop(false)
		q.Push(nd, priority.Levels()[i%priority.NumLevels]) // back in, at another level
		i++
	}
}

func TestGateAllocs(t *testing.T) {
	var c inflight.Counter
	var g Gate
	allocs := testing.AllocsPerRun(1000, func() {
		for _, l := range priority.Levels() {
			if g.TryAcquire(&c, 10, l) {
				g.Release(&c, l)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("TryAcquire and Release allocate %v times, want 0", allocs)
	}
}
