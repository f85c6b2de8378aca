// Package priority provides the vocabulary of request criticality that the
// frontdoor limiters share: a Level per request, how a server finds it
// (a Classifier), how it travels inside a process (the context) and from
// one service to the next (Transport).
//
// Under overload a limiter that knows each request's Level refuses the
// lowest levels first: the four levels are those of Google's SRE book,
// from CriticalPlus down to Sheddable, and a request that says nothing is
// Critical (Default).
//
//	// Batch jobs mark their calls Sheddable; everything else is Critical.
//	classify := func(r *http.Request) priority.Level {
//		if r.URL.Path == "/prefetch" {
//			return priority.Sheddable
//		}
//		return priority.Context(r) // set by an earlier middleware, or Default
//	}
//	s := shed.New(shed.Options{Limit: 50, Priority: classify})
//
// # Trust
//
// A level read from a request header is whatever the client wrote, so no
// limiter reads one unless told to: Header is opt-in, for a header set by
// a trusted peer (another of your services, through Transport, or a proxy
// that strips it from outside requests).
//
// # Propagation
//
// WithLevel stores a level in a context and FromContext reads it back.
// Transport sends the level of an outgoing request's context in a header
// (DefaultHeader unless told otherwise), so a chain of services that each
// classify with Header sheds consistently. It sends it only to the host
// the caller asked for, never to another host a redirect leads to.
package priority
