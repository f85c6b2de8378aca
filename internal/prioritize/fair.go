package prioritize

import (
	"slices"
	"sync/atomic"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/priority"
)

const (
	// fairSlack is the fewest slots below its cutoff in which a tenant
	// over its share gives way to the others.
	fairSlack = 2
	// fairTarget is the share of their requests that the tenants under
	// their share may find every slot taken, beyond what they would with
	// the whole limit to themselves, while those over theirs take every
	// slot they may: what the reserve between tenants aims for. It is
	// laxer than the one between levels, since each slot it keeps free is
	// taken from a tenant of the same level.
	fairTarget = 0.05
	// partWindows is over how many windows, about, a tenant's share of
	// the arrivals of its level is averaged.
	partWindows = 4
)

// shares is the state of a Fair Gate that shares each level between
// tenants by what they ask for.
//
// The demand of a tenant is its share of its level's arrivals, admitted or
// refused (a moving average over about partWindows windows), times the
// level's demand in slots: its mean in flight times its arrivals per
// admission. At the end of each window the slots of a level (its cutoff)
// are shared max-min fair between the tenants by their demand: the
// smallest demands are served in full while each fits in an equal part of
// what the smaller ones leave, and the tenants that ask for more are over
// their share. A request of a tenant over its share is refused while the
// count is within reserveFor(m, cutoff, fairTarget) slots of the cutoff
// (at least fairSlack), m the demand of the tenants under their share:
// trunk reservation, as between levels, so that those find a free slot,
// and the slots stay idle when they do not come.
//
// When every tenant asks for more than an equal part, nobody is served in
// full; then, if some ask for half as much again as others, near the
// cutoff (within fairSlack) a tenant that holds more than a quarter above
// the level's in flight per tenant in flight gives way. Otherwise, with
// no tenant over its share, or a single tenant, tenants are not told
// apart.
type shares struct {
	// arrivals[i][b] counts the arrivals of level i and key group b.
	arrivals [priority.NumLevels][Buckets]atomic.Uint64
	// over[i] has bit b set when group b of level i asked for more than
	// its share in the last window, reserved[i] is how many slots below
	// the cutoff a request of such a group leaves to the others, and
	// allOver[i] is set when every group with arrivals asked for more
	// than an equal part, some half as much again as others.
	over     [priority.NumLevels]atomic.Uint64
	reserved [priority.NumLevels]atomic.Int64
	allOver  [priority.NumLevels]atomic.Bool

	// Under the Gate's lock, per level: the counts at the end of the last
	// window, each group's share of the arrivals, and the estimate of the
	// demand of the groups under their share.
	last     [priority.NumLevels][Buckets]uint64
	lastSeen [priority.NumLevels]struct{ arrived, admitted uint64 }
	part     [priority.NumLevels][Buckets]float64
	under    [priority.NumLevels]float64
}

// Buckets must fit the bits of shares.over.
var _ [64 - Buckets]struct{}

// overShare reports whether a request of level i and tenant key of a Fair
// Gate, which finds the count at c with cutoff for its level, must give
// way to other tenants of its level (see shares).
func (g *Gate) overShare(c *inflight.Counter, cutoff int64, i int, key uint64) bool {
	s := &g.shares
	b := key % Buckets
	if s.over[i].Load()&(1<<b) != 0 {
		return c.Load() >= cutoff-max(fairSlack, s.reserved[i].Load())
	}
	if !s.allOver[i].Load() || c.Load() < cutoff-fairSlack {
		return false
	}
	active := g.active[i].Load()
	if active < 2 {
		return false
	}
	return 4*g.tenants[i][b].Load()*active > 5*g.per[i].inFlight.Load()
}

// demand is a tenant's demand in slots, of key group b.
type demand struct {
	slots float64
	b     int
}

// share closes the window for level i, whose requests held inFlight slots
// on average and which may use cutoff slots: it shares them between the
// tenants by their demand, and sets who is over its share and the reserve
// left to the others. The Gate's lock is held. It allocates nothing.
func (g *Gate) share(i int, inFlight float64, cutoff int64) {
	s := &g.shares
	p := &g.per[i]
	arrived, admitted := p.arrived.Load(), p.admitted.Load()
	seen := &s.lastSeen[i]
	n, a := arrived-seen.arrived, admitted-seen.admitted
	seen.arrived, seen.admitted = arrived, admitted
	var ds [Buckets]demand
	k := 0
	for b := range Buckets {
		v := s.arrivals[i][b].Load()
		d := v - s.last[i][b]
		s.last[i][b] = v
		part := &s.part[i][b]
		if n > 0 {
			*part += (float64(d)/float64(n) - *part) / partWindows
		}
		if *part < 1.0/(Buckets*sampleEvery*window) {
			*part = 0 // less than an arrival in a window from every group
		}
		if *part > 0 {
			ds[k] = demand{*part, b}
			k++
		}
	}
	if k < 2 || n == 0 {
		s.set(i, 0, false, 0, cutoff)
		return
	}
	// The level's demand in slots: what it held, times its arrivals per
	// admission; with nothing admitted, more than it may hold.
	total := 2 * float64(cutoff)
	if a > 0 {
		total = inFlight * float64(n) / float64(a)
	}
	for j := range k {
		ds[j].slots *= total
	}
	slices.SortFunc(ds[:k], func(x, y demand) int {
		switch {
		case x.slots < y.slots:
			return -1
		case x.slots > y.slots:
			return 1
		}
		return 0
	})
	left, under := float64(cutoff), 0.0
	j := 0
	for ; j < k && ds[j].slots*float64(k-j) <= left; j++ {
		left -= ds[j].slots
		under += ds[j].slots
	}
	var over uint64
	if j > 0 {
		for _, d := range ds[j:k] {
			over |= 1 << d.b
		}
	}
	// Every tenant over an equal part, some much more than others.
	allOver := j == 0 && 2*ds[k-1].slots > 3*ds[0].slots
	s.set(i, over, allOver, under, cutoff)
}

// set publishes who of level i is over its share and the reserve for
// those under theirs, whose demand in this window is under.
func (s *shares) set(i int, over uint64, allOver bool, under float64, cutoff int64) {
	s.allOver[i].Store(allOver)
	s.over[i].Store(over)
	if over == 0 {
		s.under[i] = 0
		s.reserved[i].Store(0)
		return
	}
	s.under[i] = follow(s.under[i], under)
	s.reserved[i].Store(reserveFor(s.under[i], cutoff, fairTarget))
}
