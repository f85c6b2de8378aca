// Package shed provides synchronous load shedding at the front door: a
// request is counted and checked against a limit in one atomic step, and
// refused with 503 at once, before any other work is done for it.
//
//	mux := http.NewServeMux()
//	mux.Handle("/hello", hello)
//	http.ListenAndServe(":8000", shed.Limit(50)(mux))
//
// Counting and checking in one step is what keeps the limit true under a
// burst: a shedder that checks first and counts later lets every request
// of a burst see the same low count and pass.
//
// The admission works without HTTP: TryAcquire takes a place and Release
// gives it back, so gRPC interceptors and job loops share the limit and
// the count of the HTTP middleware, which is a thin user of the same two
// calls.
//
// With no number (shed.Limit(0), or Options with Limit left out) the
// limit finds itself from what the server completes: see Options.Limit.
//
// # Priorities
//
// With Options.Priority, each request has a level (package priority) and
// the lowest levels are refused first. There is no fixed share per level:
// a level is admitted while, counted in, it leaves free the few places
// the levels above it need to find one, sized from their recent demand,
// so that capacity nobody above needs is anyone's. When the levels above
// need the whole limit, the levels below get nothing; the top level is
// refused only at the limit, as without priorities. Without a queue,
// keeping places free costs some capacity under overload, more so for a
// small limit: a limit of a few slots (CPU-bound handlers) is better
// served by package concurrency, whose queue orders by level instead.
// Options.Tenant shares each level between tenants as well.
//
//	s := shed.New(shed.Options{Limit: 50, Priority: priority.Header("")})
//
// A refusal then names the level it refused in the Frontdoor-Priority
// header, and Stats counts each level.
//
// Shed is not a rate limiter and not per client: it bounds how many
// requests this process serves at the same time. A request holds its
// place for as long as it runs, body upload included: where slow uploads
// pass through (shed in front of bodybuffer), give upload routes a Shedder
// of their own, so slow bodies cannot take the places of short requests.
package shed
