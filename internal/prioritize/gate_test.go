package prioritize

import (
	"testing"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/priority"
)

// mix returns a load of limit slots at x times capacity, split between
// levels by share (of the arrivals).
func mix(limit int64, x float64, share map[priority.Level]float64) load {
	ld := load{limit: limit}
	for l, s := range share {
		ld.rate[l.Index()] = x * s
	}
	return ld
}

// TestGateSheddableFirst simulates open-loop overload through a Gate and
// checks who is refused: the levels above keep their success, the level
// below loses what must be lost, and capacity is not wasted doing it
// (goodput against today's single-class limit on the same arrivals).
func TestGateSheddableFirst(t *testing.T) {
	const n = 150000
	twoClasses := map[priority.Level]float64{priority.Critical: 0.2, priority.Sheddable: 0.8}
	for _, tt := range []struct {
		name        string
		ld          load
		maxCritical float64 // most critical refused
		minShed     float64 // least sheddable refused
		minGoodput  float64 // least goodput, as a share of today's
	}{
		// 1.2x: one request in six must go; all from the 80% sheddable
		// means at least 5/24 of them.
		{"1.2x limit 200", mix(200, 1.2, twoClasses), 0.005, 5.0 / 24, 0.95},
		{"1.2x limit 50", mix(50, 1.2, twoClasses), 0.005, 5.0 / 24, 0.90},
		// 3x: two requests in three must go.
		{"3x limit 200", mix(200, 3, twoClasses), 0.005, 0.8, 0.90},
		{"3x limit 50", mix(50, 3, twoClasses), 0.005, 0.8, 0.75},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := withGate(tt.ld, n, 1)
			today := withoutPriorities(tt.ld, n, 1)
			if r := got.refusedShare(priority.Critical); r > tt.maxCritical {
				t.Errorf("critical refused %.4f, want <= %.4f", r, tt.maxCritical)
			}
			if r := got.refusedShare(priority.Sheddable); r < tt.minShed {
				t.Errorf("sheddable refused %.4f, want >= %.4f", r, tt.minShed)
			}
			if g := float64(got.goodput()) / float64(today.goodput()); g < tt.minGoodput {
				t.Errorf("goodput %.3f of today's, want >= %.3f", g, tt.minGoodput)
			}
		})
	}
}

// TestGateCriticalOverCapacity: when critical requests alone exceed the
// limit, they are refused as today's single class would be, and sheddable
// ones get (almost) nothing.
func TestGateCriticalOverCapacity(t *testing.T) {
	const n = 150000
	ld := load{limit: 50}
	ld.rate[priority.Critical.Index()] = 1.5
	ld.rate[priority.Sheddable.Index()] = 0.8
	got, _ := withGate(ld, n, 2)
	alone := withoutPriorities(mix(50, 1.5, map[priority.Level]float64{priority.Critical: 1}), n, 2)
	if r := got.refusedShare(priority.Sheddable); r < 0.99 {
		t.Errorf("sheddable refused %.4f, want >= 0.99", r)
	}
	r, want := got.refusedShare(priority.Critical), alone.refusedShare(priority.Critical)
	if r > want+0.02 {
		t.Errorf("critical refused %.4f, want within 0.02 of %.4f (critical alone)", r, want)
	}
}

// TestGateNoPartition: a level that nobody above competes with uses the
// whole limit, as without priorities.
func TestGateNoPartition(t *testing.T) {
	const n = 100000
	for _, l := range []priority.Level{priority.Sheddable, priority.Critical} {
		ld := mix(50, 1.2, map[priority.Level]float64{l: 1})
		got, g := withGate(ld, n, 3)
		today := withoutPriorities(ld, n, 3)
		if got.goodput() != today.goodput() {
			t.Errorf("%v alone: goodput %d, want today's %d", l, got.goodput(), today.goodput())
		}
		if r := g.Reserved(l); r != 0 {
			t.Errorf("%v alone: Reserved = %d, want 0", l, r)
		}
	}
}

// TestGateFourLevels: with every level at once, a lower level is always
// refused more, and the top one keeps its success.
func TestGateFourLevels(t *testing.T) {
	each := map[priority.Level]float64{}
	for _, l := range priority.Levels() {
		each[l] = 0.25
	}
	got, _ := withGate(mix(200, 1.5, each), 150000, 4)
	prev := 2.0
	for i := range priority.NumLevels {
		l := priority.Levels()[i]
		r := got.refusedShare(l)
		t.Logf("%v refused %.4f", l, r)
		if i > 0 && r >= prev && prev < 0.99 {
			t.Errorf("%v refused %.4f, not less than the level below (%.4f)", l, r, prev)
		}
		prev = r
	}
	if r := got.refusedShare(priority.CriticalPlus); r > 0.005 {
		t.Errorf("critical_plus refused %.4f, want <= 0.005", r)
	}
}

// TestGateWhoIsRefused follows one Gate step by step: critical requests
// in flight make it keep slots free for them, which sheddable requests
// cannot take and critical ones can.
func TestGateWhoIsRefused(t *testing.T) {
	const limit = 20
	var g Gate
	var c inflight.Counter
	// Before any demand is known, a sheddable request may take every slot.
	for i := range limit {
		if !g.TryAcquire(&c, limit, priority.Sheddable, 0) {
			t.Fatalf("sheddable #%d refused with nothing reserved", i+1)
		}
	}
	if g.TryAcquire(&c, limit, priority.CriticalPlus, 0) {
		t.Fatal("critical_plus admitted above the limit")
	}
	for range limit {
		g.Release(&c, priority.Sheddable, 0)
	}

	// Ten critical requests stay in flight for a whole window.
	for range 10 {
		if !g.TryAcquire(&c, limit, priority.Critical, 0) {
			t.Fatal("critical refused below the limit")
		}
	}
	for range sampleEvery * window {
		if g.TryAcquire(&c, limit, priority.Sheddable, 0) {
			g.Release(&c, priority.Sheddable, 0)
		}
	}
	h := g.Reserved(priority.Sheddable)
	above := g.est[priority.Critical.Index()]
	if want := reserve(above, limit); h != want || h == 0 {
		t.Fatalf("Reserved(sheddable) = %d, want reserve(%v, %d) = %d > 0", h, above, limit, want)
	}
	if r := g.Reserved(priority.Critical); r != 0 {
		t.Errorf("Reserved(critical) = %d with nothing above it, want 0", r)
	}
	// Sheddable requests fill up to limit - h, and no further.
	for c.Load() < limit-h {
		if !g.TryAcquire(&c, limit, priority.Sheddable, 0) {
			t.Fatalf("sheddable refused at %d in flight, below %d", c.Load(), limit-h)
		}
	}
	if g.TryAcquire(&c, limit, priority.Sheddable, 0) {
		t.Fatalf("sheddable admitted at %d in flight, into the %d reserved", c.Load()-1, h)
	}
	// Critical requests take the reserved slots, up to the limit.
	for c.Load() < limit {
		if !g.TryAcquire(&c, limit, priority.Critical, 0) {
			t.Fatalf("critical refused at %d in flight, below the limit", c.Load())
		}
	}
	if g.TryAcquire(&c, limit, priority.Critical, 0) {
		t.Fatal("critical admitted above the limit")
	}
	if a, r := g.Counts(priority.CriticalPlus); a != 0 || r != 1 {
		t.Errorf("Counts(critical_plus) = %d admitted, %d refused; want 0, 1", a, r)
	}
}

func TestReserve(t *testing.T) {
	for _, tt := range []struct {
		m     float64
		limit int64
		want  func(h int64) bool
		what  string
	}{
		{0, 50, func(h int64) bool { return h == 0 }, "0 with nothing above"},
		{0.5, 50, func(h int64) bool { return h >= 1 && h <= 3 }, "a few slots for a trickle"},
		{12, 50, func(h int64) bool { return h >= 3 && h <= 6 }, "a few slots for a quarter of the limit"},
		{60, 50, func(h int64) bool { return h >= 45 }, "about everything when those above need more than the limit"},
		{5, 0, func(h int64) bool { return h == 0 }, "0 for a limit of 0"},
	} {
		if h := reserve(tt.m, tt.limit); !tt.want(h) {
			t.Errorf("reserve(%v, %d) = %d, want %s", tt.m, tt.limit, h, tt.what)
		}
	}
	// More demand above never means less reserved, until the levels
	// above are themselves refused often (then what they lose anyway
	// relaxes the goal).
	prev := int64(0)
	for m := 0.0; m <= 70; m += 0.25 {
		h := reserve(m, 100)
		if h < prev {
			t.Fatalf("reserve(%v, 100) = %d, below reserve(%v, 100) = %d", m, h, m-0.25, prev)
		}
		prev = h
	}
}

// TestGateFair: two tenants share the sheddable level, one sending four
// times as much as the other, together 1.2 times capacity. Without
// fairness both lose the same share; with it the quiet tenant, which asks
// for less than half, loses little and the noisy one loses the rest.
func TestGateFair(t *testing.T) {
	const n = 150000
	ld := mix(50, 1.2, map[priority.Level]float64{priority.Sheddable: 1})
	ld.tenants = []float64{4, 1} // key 0 noisy, key 1 quiet
	plain := through(&Gate{}, ld, n, 5)
	fair := through(&Gate{Fair: true}, ld, n, 5)
	noisy, quiet := fair.tenantRefusedShare(0), fair.tenantRefusedShare(1)
	t.Logf("not fair: noisy %.4f quiet %.4f; fair: noisy %.4f quiet %.4f",
		plain.tenantRefusedShare(0), plain.tenantRefusedShare(1), noisy, quiet)
	if quiet > plain.tenantRefusedShare(1)/4 {
		t.Errorf("fair: quiet tenant refused %.4f, want at most a quarter of %.4f (not fair)", quiet, plain.tenantRefusedShare(1))
	}
	if noisy <= quiet {
		t.Errorf("fair: noisy tenant refused %.4f, not more than the quiet one (%.4f)", noisy, quiet)
	}
	g := float64(fair.goodput()) / float64(plain.goodput())
	t.Logf("fair goodput %.3f of not fair", g)
	if g < 0.95 {
		t.Errorf("fair goodput %.3f of not fair, want >= 0.95", g)
	}
}

// TestGateFairNoisyTenant: one tenant sends ten times as much as each of
// three others, together twice the capacity: the quiet ones, each under a
// quarter, are served as if alone but for a few percent, the noisy one
// loses the rest, and the slots kept free for the quiet ones cost little
// goodput. Tenants that all ask for the same are not told apart once the
// Gate has seen them: the goodput is that of a plain limit (but for the
// randomness of another sample path).
func TestGateFairNoisyTenant(t *testing.T) {
	const n = 100000
	for _, limit := range []int64{20, 200} {
		ld := mix(limit, 2, map[priority.Level]float64{priority.Sheddable: 1})
		ld.tenants = []float64{10, 1, 1, 1}
		fair := through(&Gate{Fair: true}, ld, n, 7)
		plain := withoutPriorities(ld, n, 7)
		for q := 1; q <= 3; q++ {
			if r := fair.tenantRefusedShare(q); r > 0.05 {
				t.Errorf("limit %d: quiet tenant %d refused %.4f, want <= 0.05 (not fair: %.4f)", limit, q, r, plain.tenantRefusedShare(q))
			}
		}
		if r := fair.tenantRefusedShare(0); r < plain.tenantRefusedShare(0) {
			t.Errorf("limit %d: noisy tenant refused %.4f, less than without fairness (%.4f)", limit, r, plain.tenantRefusedShare(0))
		}
		if g := float64(fair.goodput()) / float64(plain.goodput()); g < 0.8 {
			t.Errorf("limit %d: goodput %.3f of not fair, want >= 0.8", limit, g)
		}

		ld.tenants = []float64{1, 1, 1, 1}
		same := through(&Gate{Fair: true}, ld, n, 7)
		if g := float64(same.goodput()) / float64(plain.goodput()); g < 0.99 {
			t.Errorf("limit %d, equal tenants: goodput %.3f of not fair, want >= 0.99", limit, g)
		}
	}
}
