package prioritize

import "github.com/frontdoor-go/frontdoor/priority"

// A Queue is a bounded limiter's waiting line ordered by level: a waiter
// of a higher level is served before any of a lower one, and a newcomer
// to a full queue may push out a waiter of a lower level (Victim). Within
// a level the order is the limiter's: oldest first (FIFO) or newest first
// (LIFO).
//
// Nodes are intrusive, as in container/list without the allocation: the
// limiter owns each Node (usually inside its waiter) and pushes it at most
// once at a time. All operations but Len are O(levels). The zero value is
// an empty queue. A Queue is not safe for concurrent use: the limiter
// guards it with its lock.
type Queue[T any] struct {
	lists [priority.NumLevels]list[T]
	n     int
}

// A Node is one waiter's place in a Queue; Value is the limiter's.
type Node[T any] struct {
	prev, next *Node[T]
	level      int // index of the level in the Queue, set by Push
	Value      T
}

type list[T any] struct {
	head, tail *Node[T] // head is the oldest
	n          int
}

// Len returns the number of waiters.
func (q *Queue[T]) Len() int { return q.n }

// Push adds nd, of level l, as the newest waiter of its level.
func (q *Queue[T]) Push(nd *Node[T], l priority.Level) {
	nd.level = l.Index()
	ls := &q.lists[nd.level]
	nd.prev, nd.next = ls.tail, nil
	if ls.tail != nil {
		ls.tail.next = nd
	} else {
		ls.head = nd
	}
	ls.tail = nd
	ls.n++
	q.n++
}

// Remove takes nd, which must be in q, out of it.
func (q *Queue[T]) Remove(nd *Node[T]) {
	ls := &q.lists[nd.level]
	if nd.prev != nil {
		nd.prev.next = nd.next
	} else {
		ls.head = nd.next
	}
	if nd.next != nil {
		nd.next.prev = nd.prev
	} else {
		ls.tail = nd.prev
	}
	nd.prev, nd.next = nil, nil
	ls.n--
	q.n--
}

// Next returns the waiter to serve first, without removing it: of the
// highest level that has waiters, the oldest, or with lifo the newest. It
// returns nil if q is empty.
func (q *Queue[T]) Next(lifo bool) *Node[T] {
	for i := len(q.lists) - 1; i >= 0; i-- {
		if ls := &q.lists[i]; ls.n > 0 {
			if lifo {
				return ls.tail
			}
			return ls.head
		}
	}
	return nil
}

// Ahead returns how many waiters would be served before a newcomer of
// level l: all those of higher levels, and with FIFO those of its own.
func (q *Queue[T]) Ahead(l priority.Level, lifo bool) int {
	i := l.Index()
	n := 0
	for j := i + 1; j < len(q.lists); j++ {
		n += q.lists[j].n
	}
	if !lifo {
		n += q.lists[i].n
	}
	return n
}

// Victim returns the waiter that a newcomer of level l pushes out of a
// full queue, without removing it: the oldest of the lowest level below l
// that has waiters; with lifo, a waiter of level l itself too (the oldest,
// as a LIFO queue without levels does). It returns nil when the newcomer
// must be refused instead.
func (q *Queue[T]) Victim(l priority.Level, lifo bool) *Node[T] {
	top := l.Index()
	if lifo {
		top++
	}
	for i := range top {
		if ls := &q.lists[i]; ls.n > 0 {
			return ls.head
		}
	}
	return nil
}
