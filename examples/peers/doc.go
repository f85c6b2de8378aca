// Package peers holds benchmarks that run frontdoor's middlewares side by
// side with the peers they are compared with (chi's Throttle, Heartbeat and
// others), so that the library module itself requires none of them:
//
//	go test -run '^$' -bench . ./examples/peers/
//
// Each benchmark reports a bare handler, frontdoor and the peer in one run;
// read the ratios.
package peers
