package prioritize

import "github.com/frontdoor-go/frontdoor/priority"

// Buckets is how many tenants a Fair queue tells apart within a level:
// tenants whose keys fall in the same bucket share its turns.
const Buckets = 64

// A Queue is a bounded limiter's waiting line ordered by level: a waiter
// of a higher level is served before any of a lower one, and a newcomer
// to a full queue may push out a waiter of a lower level (Victim). Within
// a level the order is the limiter's: oldest first (FIFO) or newest first
// (LIFO).
//
// A Fair queue also takes turns between tenants within a level: the
// waiters of each level are grouped by Node.Key, the groups are served in
// turn (round robin, each in the limiter's order), and a full queue pushes
// out a waiter of the group with the most waiters, also for a newcomer of
// the same level whose own group has fewer (longest queue drop). So one
// tenant that sends much more than the others gets at most its turn, and
// loses its own waiters first.
//
// Nodes are intrusive, as in container/list without the allocation: the
// limiter owns each Node (usually inside its waiter) and pushes it at most
// once at a time. The zero value is an empty queue, not fair. A Queue is
// not safe for concurrent use: the limiter guards it with its lock.
type Queue[T any] struct {
	// Fair, set before the first Push, takes turns between tenants.
	Fair bool

	levels [priority.NumLevels]level[T]
	n      int
}

// A Node is one waiter's place in a Queue; Value is the limiter's.
type Node[T any] struct {
	prev, next *Node[T]
	level      int8  // index of the level, set by Push
	bucket     int16 // index of the Key's group, set by Push
	// Key names the tenant in a Fair queue; it is read by Push.
	Key   uint64
	Value T
}

// A level is the waiters of one level, in groups (one when not fair) of
// which those with waiters form a ring: cur is the group whose turn it is,
// -1 when the level is empty.
type level[T any] struct {
	groups     []list[T] // allocated at the first Push
	next, prev []int16   // the ring of groups with waiters
	cur        int16
	active     int // groups with waiters
	n          int
}

type list[T any] struct {
	head, tail *Node[T] // head is the oldest
	n          int
}

// Len returns the number of waiters.
func (q *Queue[T]) Len() int { return q.n }

// Push adds nd, of level l, as the newest waiter of its level (and, in a
// Fair queue, of its Key's group, which if new takes its turn last).
func (q *Queue[T]) Push(nd *Node[T], l priority.Level) {
	nd.level = int8(l.Index())
	lv := &q.levels[nd.level]
	if lv.groups == nil {
		n := 1
		if q.Fair {
			n = Buckets
		}
		lv.groups = make([]list[T], n)
		lv.next, lv.prev = make([]int16, n), make([]int16, n)
		lv.cur = -1
	}
	b := int16(0)
	if q.Fair {
		b = int16(nd.Key % Buckets)
	}
	nd.bucket = b
	g := &lv.groups[b]
	if g.n == 0 {
		lv.join(b)
	}
	nd.prev, nd.next = g.tail, nil
	if g.tail != nil {
		g.tail.next = nd
	} else {
		g.head = nd
	}
	g.tail = nd
	g.n++
	lv.n++
	q.n++
}

// join puts group b in the ring, just before the group whose turn it is.
func (lv *level[T]) join(b int16) {
	lv.active++
	if lv.cur < 0 {
		lv.cur, lv.next[b], lv.prev[b] = b, b, b
		return
	}
	p := lv.prev[lv.cur]
	lv.next[p], lv.prev[b] = b, p
	lv.next[b], lv.prev[lv.cur] = lv.cur, b
}

// leave takes group b, now empty, out of the ring; if it was its turn, the
// turn passes to the next.
func (lv *level[T]) leave(b int16) {
	lv.active--
	if lv.next[b] == b {
		lv.cur = -1
		return
	}
	p, n := lv.prev[b], lv.next[b]
	lv.next[p], lv.prev[n] = n, p
	if lv.cur == b {
		lv.cur = n
	}
}

// Remove takes nd, which must be in q, out of it.
func (q *Queue[T]) Remove(nd *Node[T]) {
	lv := &q.levels[nd.level]
	g := &lv.groups[nd.bucket]
	if nd.prev != nil {
		nd.prev.next = nd.next
	} else {
		g.head = nd.next
	}
	if nd.next != nil {
		nd.next.prev = nd.prev
	} else {
		g.tail = nd.prev
	}
	nd.prev, nd.next = nil, nil
	g.n--
	lv.n--
	q.n--
	if g.n == 0 {
		lv.leave(nd.bucket)
	}
}

// Pop removes and returns the waiter to serve first: of the highest level
// that has waiters, the oldest (with lifo the newest) of the group whose
// turn it is, after which the turn passes to the next group. It returns
// nil if q is empty.
func (q *Queue[T]) Pop(lifo bool) *Node[T] {
	for i := len(q.levels) - 1; i >= 0; i-- {
		lv := &q.levels[i]
		if lv.n == 0 {
			continue
		}
		b := lv.cur
		nd := lv.groups[b].head
		if lifo {
			nd = lv.groups[b].tail
		}
		q.Remove(nd)
		if lv.cur == b {
			lv.cur = lv.next[b]
		}
		return nd
	}
	return nil
}

// Ahead returns how many waiters may be served before a newcomer of level
// l and key: all those of higher levels, and of its own level those
// before it in the limiter's order — in a Fair queue at most a turn of
// each other group per waiter of its own group before it.
func (q *Queue[T]) Ahead(l priority.Level, key uint64, lifo bool) int {
	i := l.Index()
	n := 0
	for j := i + 1; j < len(q.levels); j++ {
		n += q.levels[j].n
	}
	lv := &q.levels[i]
	if lv.n == 0 {
		return n
	}
	own, turns := lv.n, 1 // not fair: one group
	if q.Fair {
		g := lv.groups[key%Buckets].n
		turns = lv.active
		if g == 0 {
			turns++
		}
		own = min(lv.n, (g+1)*turns-1)
	}
	if lifo {
		own = min(lv.n, turns-1)
	}
	return n + own
}

// Below reports whether any waiter is of a level below l.
func (q *Queue[T]) Below(l priority.Level) bool {
	for i := range l.Index() {
		if q.levels[i].n > 0 {
			return true
		}
	}
	return false
}

// Victim returns the waiter that a newcomer of level l and key pushes out
// of a full queue, without removing it: of the lowest level below l that
// has waiters, the oldest (in a Fair queue, of the group with the most
// waiters). Failing that, a waiter of level l itself: with lifo the
// oldest (of the group with the most waiters), as a LIFO queue without
// levels would; in a Fair queue, the oldest of the group with the most
// waiters if that group has at least two more than the newcomer's, so
// that a full queue still takes turns between tenants. It returns nil
// when the newcomer must be refused instead.
func (q *Queue[T]) Victim(l priority.Level, key uint64, lifo bool) *Node[T] {
	top := l.Index()
	for i := range top {
		if lv := &q.levels[i]; lv.n > 0 {
			b, _ := lv.most()
			return lv.groups[b].head
		}
	}
	lv := &q.levels[top]
	if lv.n == 0 || !lifo && !q.Fair {
		return nil
	}
	b, most := lv.most()
	if !lifo && most < lv.groups[key%Buckets].n+2 {
		return nil
	}
	return lv.groups[b].head
}

// most returns the group of lv, which has waiters, with the most waiters
// (the first in turn of those that tie), and how many it has.
func (lv *level[T]) most() (b int16, n int) {
	b, n = lv.cur, lv.groups[lv.cur].n
	for c := lv.next[b]; c != lv.cur; c = lv.next[c] {
		if m := lv.groups[c].n; m > n {
			b, n = c, m
		}
	}
	return b, n
}
