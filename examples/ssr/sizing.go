package main

import (
	"fmt"

	"github.com/frontdoor-go/frontdoor/concurrency"
)

// sizing is how many requests each layer of the chain admits, and the
// GOMAXPROCS the process needs for it.
type sizing struct {
	renders int   // concurrency.Options.Limit: renders at once
	queue   int   // concurrency.Options.MaxQueue: renders that may wait (0: none)
	limit   int64 // shed.Options.Limit: requests in flight in the whole chain
	procs   int   // GOMAXPROCS
}

// size applies the concurrency package's rule for CPU-bound handlers on
// cores cores (GOMAXPROCS at start): renders = cores+1 by default, and
// always GOMAXPROCS >= renders+1, so that one P is left for accepting
// connections, reading bodies and refusing while every render slot burns
// CPU. A zero queue means concurrency's default (8 per slot), negative
// means none; a zero limit means room for every running and queued
// render plus as many uploads in progress. It returns an error for a
// setting the rule does not allow.
func size(cores, renders, queue int, limit int64) (sizing, error) {
	s := sizing{renders: renders, queue: queue, limit: limit}
	switch {
	case cores < 1:
		return s, fmt.Errorf("cores %d, want >= 1", cores)
	case renders < 0:
		return s, fmt.Errorf("-renders %d, want >= 0", renders)
	case limit < 0:
		return s, fmt.Errorf("-limit %d, want >= 0", limit)
	}
	if s.renders == 0 {
		s.renders = cores + 1
	}
	switch {
	case s.queue == 0:
		s.queue = concurrency.DefaultQueueFactor * s.renders
	case s.queue < 0:
		s.queue = 0
	}
	if s.limit == 0 {
		s.limit = 2 * int64(s.renders+s.queue)
	}
	s.procs = max(cores, s.renders+1)
	return s, nil
}

// maxQueue is s.queue as concurrency.Options.MaxQueue spells "no queue".
func (s sizing) maxQueue() int {
	if s.queue == 0 {
		return -1
	}
	return s.queue
}
