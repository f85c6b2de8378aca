package inflight_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/frontdoor-go/frontdoor/inflight"
)

// A Dec without a matching Inc panics without ever moving the count, so
// it never opens a place: while one goroutine releases more than was
// taken, callers of TryInc(1) never see the count leave 0..1 (a -1 would
// let two of them in), and every place they took is accounted for by a
// Dec that did not panic.
func TestDecBelowZeroOpensNoPlace(t *testing.T) {
	const limit, places = 1, 20000
	var c inflight.Counter
	var stop atomic.Bool
	var taken, released atomic.Int64
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for !stop.Load() {
				if c.TryInc(limit) {
					taken.Add(1)
				}
				if n := c.Load(); n < 0 || n > limit {
					t.Errorf("Load() = %d, want 0..%d", n, limit)
					stop.Store(true)
				}
			}
		})
	}
	for !stop.Load() && taken.Load() < places {
		func() {
			defer func() { recover() }()
			c.Dec() // on 0 it panics; on 1 it frees the place a TryInc took
			released.Add(1)
		}()
	}
	stop.Store(true)
	wg.Wait()
	if got, want := c.Load(), taken.Load()-released.Load(); got != want {
		t.Errorf("Load() = %d, want %d (places taken - Decs that did not panic)", got, want)
	}
}
