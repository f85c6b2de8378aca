package prioritize

import (
	"container/heap"
	"math/rand/v2"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/priority"
)

// A load is an open-loop workload for simulate: Poisson arrivals, each of
// one level, exponential service times of mean 1.
type load struct {
	limit int64
	// rate[i] is the arrival rate of level i in units of capacity (limit
	// requests per mean service time): 1.2 is 20% more than can be served.
	rate [priority.NumLevels]float64
	// tenants, if not empty, splits the arrivals of every level between
	// tenants (keys 0, 1, ...) in these proportions.
	tenants []float64
}

// outcome counts the requests of each level that simulate admitted and
// refused, after a warm-up.
type outcome struct {
	admitted, refused [priority.NumLevels]int
	// per tenant, all levels together
	tenantAdmitted, tenantRefused [8]int
}

func (o outcome) tenantRefusedShare(key int) float64 {
	return float64(o.tenantRefused[key]) / float64(o.tenantAdmitted[key]+o.tenantRefused[key])
}

func (o outcome) refusedShare(l priority.Level) float64 {
	i := l.Index()
	return float64(o.refused[i]) / float64(o.admitted[i]+o.refused[i])
}

func (o outcome) goodput() (n int) {
	for _, a := range o.admitted {
		n += a
	}
	return n
}

// simulate runs n arrivals of ld through admit and release in simulated
// time, deterministic for a seed: a discrete-event simulation, so the
// result depends on the admission rule alone, not on the machine.
func simulate(ld load, n int, seed uint64, admit func(*inflight.Counter, priority.Level, uint64) bool, release func(*inflight.Counter, priority.Level, uint64)) outcome {
	rng := rand.New(rand.NewPCG(seed, 1))
	total := 0.0
	for _, r := range ld.rate {
		total += r
	}
	lambda := total * float64(ld.limit) // arrivals per mean service time
	var c inflight.Counter
	var deps departures
	var out outcome
	now := 0.0
	warm := n / 10
	for k := range n {
		now += rng.ExpFloat64() / lambda
		for len(deps) > 0 && deps[0].at <= now {
			d := heap.Pop(&deps).(departure)
			release(&c, d.level, d.key)
		}
		u := rng.Float64() * total
		i := 0
		for i < len(ld.rate)-1 && u >= ld.rate[i] {
			u -= ld.rate[i]
			i++
		}
		l := priority.Levels()[i]
		key := 0
		if len(ld.tenants) > 0 {
			u, sum := rng.Float64(), 0.0
			for _, t := range ld.tenants {
				sum += t
			}
			u *= sum
			for key < len(ld.tenants)-1 && u >= ld.tenants[key] {
				u -= ld.tenants[key]
				key++
			}
		}
		ok := admit(&c, l, uint64(key))
		if ok {
			heap.Push(&deps, departure{now + rng.ExpFloat64(), l, uint64(key)})
		}
		if k < warm {
			continue
		}
		if ok {
			out.admitted[i]++
			out.tenantAdmitted[key]++
		} else {
			out.refused[i]++
			out.tenantRefused[key]++
		}
	}
	for len(deps) > 0 {
		d := heap.Pop(&deps).(departure)
		release(&c, d.level, d.key)
	}
	return out
}

type departure struct {
	at    float64
	level priority.Level
	key   uint64
}

type departures []departure

func (d departures) Len() int           { return len(d) }
func (d departures) Less(i, j int) bool { return d[i].at < d[j].at }
func (d departures) Swap(i, j int)      { d[i], d[j] = d[j], d[i] }
func (d *departures) Push(x any)        { *d = append(*d, x.(departure)) }
func (d *departures) Pop() any {
	old := *d
	x := old[len(old)-1]
	*d = old[:len(old)-1]
	return x
}

// withGate simulates ld through a Gate.
func withGate(ld load, n int, seed uint64) (outcome, *Gate) {
	g := new(Gate)
	return through(g, ld, n, seed), g
}

// through simulates ld through g.
func through(g *Gate, ld load, n int, seed uint64) outcome {
	return simulate(ld, n, seed,
		func(c *inflight.Counter, l priority.Level, key uint64) bool { return g.TryAcquire(c, ld.limit, l, key) },
		g.Release)
}

// withoutPriorities simulates ld through a plain limit: today's shed.
func withoutPriorities(ld load, n int, seed uint64) outcome {
	return simulate(ld, n, seed,
		func(c *inflight.Counter, _ priority.Level, _ uint64) bool { return c.TryInc(ld.limit) },
		func(c *inflight.Counter, _ priority.Level, _ uint64) { c.Dec() })
}
