// Package prioritize holds the admission logic that refuses the lowest
// priority levels first, for the limiters of frontdoor: Gate for a limit
// without a queue (shed), Queue for a limit with one (concurrency).
//
// Neither partitions capacity: a level may use every slot that the levels
// above it do not need. Gate keeps free, for the levels above each level,
// the few slots their recent demand needs to find one (see reserve); Queue
// serves the highest level first and, when full, lets a newcomer push out
// a waiter of a lower level. Both can also take turns between tenants
// within a level (Gate.Fair, Queue.Fair, with keys from Key).
//
// Neither owns the limit: Gate.TryAcquire takes the limit on every call
// and the Queue only orders waiters, so a limit that finds itself (an
// adaptive controller) uses them as a fixed limit does, passing its
// current limit, and refuses the lowest levels first the same way.
package prioritize
