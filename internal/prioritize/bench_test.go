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
	var keys [8]uint64
	for i := range keys {
		keys[i] = Key(string(rune('a' + i)))
	}
	for _, fair := range []bool{false, true} {
		name := "gate"
		if fair {
			name = "gate-fair"
		}
		b.Run(name, func(b *testing.B) {
			var c inflight.Counter
			g := Gate{Fair: fair}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					l := priority.Levels()[i%priority.NumLevels]
					key := keys[i%len(keys)]
					i++
					if g.TryAcquire(&c, limit, l, key) {
						g.Release(&c, l, key)
					}
				}
			})
		})
	}
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
	g := Gate{Fair: true}
	tenant := "tenant-a"
	allocs := testing.AllocsPerRun(1000, func() {
		for _, l := range priority.Levels() {
			key := Key(tenant)
			if g.TryAcquire(&c, 10, l, key) {
				g.Release(&c, l, key)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("TryAcquire and Release allocate %v times, want 0", allocs)
	}
}
