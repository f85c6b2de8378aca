// Package inflight provides an atomic count of requests in flight that
// several middlewares, routes and metrics collectors can share.
//
// A Counter is the one piece of state the frontdoor packages have in
// common: shed and concurrency admit with TryInc, ping reads it, and
// metrics exports it. The zero value is an empty counter ready to use.
//
//	var c inflight.Counter
//	if !c.TryInc(50) {
//		// refuse: 50 requests are already in flight
//	}
//	defer c.Dec()
package inflight
