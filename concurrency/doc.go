// Package concurrency provides a middleware that runs at most Limit
// requests at once (one render at a time per slot) and keeps the others in
// a short, bounded queue, refusing at once those that could not start
// within their wait budget.
//
//	mux.Handle("/render", concurrency.Limit(1)(render))
package concurrency
