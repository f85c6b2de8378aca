// Package prioritize holds the admission logic that refuses the lowest
// priority levels first, for the limiters of frontdoor: Gate for a limit
// without a queue (shed), Queue for a limit with one (concurrency).
//
// Neither partitions capacity: a level may use every slot that the levels
// above it do not need. Gate keeps free, for the levels above each level,
// the few slots their recent demand needs to find one (see reserve); Queue
// serves the highest level first and, when full, lets a newcomer push out
// a waiter of a lower level.
package prioritize
