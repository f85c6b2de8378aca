package prioritize

// target is the share of their requests that the levels above a level may
// find every slot taken, when the level below fills all the slots it may:
// the blocking probability that reserve aims for.
const target = 2e-3

// reserve returns how many of limit slots a level must leave free for the
// levels above it, whose requests hold m slots on average: reserveFor
// with the blocking target of the levels above.
func reserve(m float64, limit int64) int64 { return reserveFor(m, limit, target) }

// reserveFor returns how many of limit slots a class of requests must
// leave free for another, whose requests hold m slots on average, so that
// the other finds every slot taken for at most goal more of its requests
// than with the whole limit to itself.
//
// It is trunk reservation, as telephone networks protect their priority
// calls: the level below is admitted only while more than h slots are
// free. Assume the worst for the levels above, that the levels below take
// every slot they may at once: then the count moves above limit-h only by
// arrivals from above (rate m/s for a service time s) and down by
// departures (n/s with n in flight), a birth-death chain whose top state,
// every slot taken, has probability 1/S(h) with
//
//	S(h) = sum over k in limit-h..limit of r(k), r(limit) = 1, r(k-1) = r(k)·k/m.
//
// reserveFor returns the least h for which the levels above are refused
// no more than goal plus what they would be refused with the whole limit
// to themselves (Erlang's B, where h = limit): once they need about the
// whole limit, the levels below get nothing. With m = 0 nothing is kept,
// with m >= limit everything.
func reserveFor(m float64, limit int64, goal float64) int64 {
	if m <= 0 || limit <= 0 {
		return 0
	}
	if m >= float64(limit) {
		return limit
	}
	goal += erlangB(m, limit)
	r, s := 1.0, 1.0
	for h := int64(0); h < limit; h++ {
		if 1/s <= goal {
			return h
		}
		k := limit - h
		r *= float64(k) / m
		s += r
	}
	return limit
}

// erlangB returns the probability that a request finds all of n slots
// taken when requests hold m slots on average and none wait: the
// recurrence B(k) = m·B(k-1) / (k + m·B(k-1)), stopped once B is too small
// to matter (it only falls as k grows).
func erlangB(m float64, n int64) float64 {
	b := 1.0
	for k := int64(1); k <= n; k++ {
		b = m * b / (float64(k) + m*b)
		if b < target*1e-6 {
			return 0
		}
	}
	return b
}
