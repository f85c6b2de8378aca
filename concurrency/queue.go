package concurrency

// A waiter is one queued caller. Its state changes only under Limiter.mu.
type waiter struct {
	prev, next *waiter
	ready      chan struct{} // closed when state leaves waiting
	state      uint8
}

const (
	waiting uint8 = iota
	granted       // a slot was taken on the waiter's behalf
	evicted       // pushed out of a full LIFO queue by a newer request
)

// queue is an intrusive doubly linked list: push at the back, take from
// either end, remove from the middle in O(1).
type queue struct {
	head, tail *waiter
	n          int
}

func (q *queue) push(w *waiter) {
	w.prev, w.next = q.tail, nil
	if q.tail != nil {
		q.tail.next = w
	} else {
		q.head = w
	}
	q.tail = w
	q.n++
}

func (q *queue) remove(w *waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		q.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		q.tail = w.prev
	}
	w.prev, w.next = nil, nil
	q.n--
}
