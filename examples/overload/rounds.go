package main

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// medians folds the results of several rounds into one result per variant
// and load: the median of each figure, with the lowest and highest goodput
// kept in lo and hi. A time to a target that was never reached counts as
// longer than any other.
func medians(res []result) []result {
	type key struct {
		variant string
		load    float64
	}
	var order []key
	groups := map[key][]result{}
	for _, r := range res {
		k := key{r.variant, r.load}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := make([]result, 0, len(order))
	for _, k := range order {
		g := groups[k]
		m := g[0]
		m.rates = nil
		m.rounds = len(g)
		m.capacity = median(g, func(r result) float64 { return r.capacity })
		m.capBurn = median(g, func(r result) float64 { return r.capBurn })
		m.pct = median(g, func(r result) float64 { return r.pct })
		m.lo = slices.MinFunc(g, func(a, b result) int { return cmp.Compare(a.pct, b.pct) }).pct
		m.hi = slices.MaxFunc(g, func(a, b result) int { return cmp.Compare(a.pct, b.pct) }).pct
		m.timeouts = median(g, func(r result) float64 { return r.timeouts })
		m.refused = median(g, func(r result) float64 { return r.refused })
		dur := func(f func(result) time.Duration) time.Duration {
			return time.Duration(median(g, func(r result) float64 { return float64(f(r)) }))
		}
		m.okP99 = dur(func(r result) time.Duration { return r.okP99 })
		m.refP99 = dur(func(r result) time.Duration { return r.refP99 })
		reached := func(f func(result) time.Duration) time.Duration {
			d := dur(func(r result) time.Duration {
				if f(r) < 0 {
					return time.Duration(1<<63 - 1)
				}
				return f(r)
			})
			if d == 1<<63-1 {
				return -1
			}
			return d
		}
		m.t95 = reached(func(r result) time.Duration { return r.t95 })
		m.down = reached(func(r result) time.Duration { return r.down })
		m.up = reached(func(r result) time.Duration { return r.up })
		out = append(out, m)
	}
	return out
}

// median returns the median of f over g; with an even count, the lower of
// the two middle values, so that it is always a value some round had.
func median(g []result, f func(result) float64) float64 {
	v := make([]float64, len(g))
	for i, r := range g {
		v[i] = f(r)
	}
	slices.Sort(v)
	return v[(len(v)-1)/2]
}

// printMedians prints the medians of n rounds, a row per variant and load.
func printMedians(sc string, res []result, n int) {
	fmt.Printf("medians of %d rounds (%%cap: median, lowest-highest):\n", n)
	marks := ""
	switch sc {
	case "cold":
		marks = "t95"
	case "step":
		marks = "down    up"
	}
	fmt.Printf("%-6s %-15s %5s %6s %5s %13s %9s %8s %8s %8s %9s\n",
		"scen", "variant", "procs", "cap/s", "load", "%cap", "timeout%", "refused%", "p99 ok", "p99 ref", marks)
	for _, r := range res {
		m := ""
		switch sc {
		case "cold":
			m = secs(r.t95)
		case "step":
			m = fmt.Sprintf("%4s %5s", secs(r.down), secs(r.up))
		}
		fmt.Printf("%-6s %-15s %5d %6.0f %4.1fx %4.0f%% %3.0f-%-3.0f %8.1f%% %7.1f%% %8s %8s %9s\n",
			sc, r.variant, r.procs, r.capacity, r.load, r.pct, r.lo, r.hi, r.timeouts, r.refused, ms(r.okP99), ms(r.refP99), m)
	}
}
