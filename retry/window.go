package retry

import "time"

// window counts two quantities over a recent span of time, in a ring of
// buckets of equal width: an event leaves the window once its bucket is
// older than len(buckets) widths. The newest bucket is partly filled, so
// the sums cover between n-1 and n widths. It is not safe for concurrent
// use; its owner holds a lock around every call.
type window struct {
	width   time.Duration
	epoch   time.Time // slots count widths since epoch, on the monotonic clock
	buckets []bucket
}

type bucket struct {
	slot int64
	n    [2]uint64
}

func newWindow(span, width time.Duration, now time.Time) window {
	n := int(span / width)
	w := window{width: width, epoch: now, buckets: make([]bucket, n)}
	for i := range w.buckets {
		w.buckets[i].slot = -1 // holds no slot yet
	}
	return w
}

// slot returns the index of the bucket width that now falls in. A time
// before epoch (a clock from another synctest bubble) counts as epoch.
func (w *window) slot(now time.Time) int64 {
	return max(int64(now.Sub(w.epoch)/w.width), 0)
}

// add counts n[0] and n[1] in the bucket of now.
func (w *window) add(now time.Time, n0, n1 uint64) {
	s := w.slot(now)
	b := &w.buckets[s%int64(len(w.buckets))]
	if b.slot != s {
		*b = bucket{slot: s}
	}
	b.n[0] += n0
	b.n[1] += n1
}

// sum returns the two counts of the buckets still in the window at now.
func (w *window) sum(now time.Time) (n0, n1 uint64) {
	s := w.slot(now)
	oldest := s - int64(len(w.buckets)) + 1
	for i := range w.buckets {
		if b := &w.buckets[i]; b.slot >= oldest && b.slot <= s {
			n0 += b.n[0]
			n1 += b.n[1]
		}
	}
	return n0, n1
}
