// Package retry provides the calling side of overload protection: an
// http.RoundTripper that retries a refused or failed request only when it
// is safe, when the server says it may and within a budget, and that
// stops sending, locally, when the server refuses most of what it gets.
// Retries then add a bounded fraction to the load of an overloaded server
// instead of multiplying it.
//
//	client := &http.Client{Transport: &retry.Transport{}}
//	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
//	defer cancel()
//	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
//	resp, err := client.Do(req)
//	var te *retry.ThrottledError
//	if errors.As(err, &te) {
//		// not sent: the server is refusing most requests; fall back
//	}
//
// # What is retried
//
// An attempt answered 503 Service Unavailable or 429 Too Many Requests,
// or that failed with a transient error (a network error or timeout, a
// connection closed before the response), is sent again if the request
// is idempotent: its method is GET, HEAD, OPTIONS, TRACE, PUT or DELETE
// (RFC 9110 §9.2.2), it has an Idempotency-Key (or X-Idempotency-Key)
// header, or Transport.Idempotent says so. A request that could not be
// sent at all, because the connection to the server could not be made
// (a dial error), is retried whatever its method. In every case the body
// must be replayable: none, http.NoBody, or req.GetBody set (as
// http.NewRequest sets it for a bytes.Buffer, bytes.Reader or
// strings.Reader body). Other statuses, 5xx included, are returned as
// they are. A request whose context has ended is never sent again.
//
// A failure after the connection was made may come before or after the
// server got the request; net/http alone knows, and itself retries, on a
// new connection, a request that failed on a reused one before any byte
// of it was written (HTTP/2 likewise for streams the server refused).
// Since the error it returns does not say, a request that is not
// idempotent is retried here after dial errors only.
//
// # How long it waits
//
// A refusal's Retry-After, in seconds or an HTTP-date, is waited in full
// plus a random part, so that clients refused together come back apart;
// a Retry-After longer than MaxWait, or than what the request's context
// deadline leaves, returns the refusal at once. Without a Retry-After the
// wait grows from Backoff, doubling with each retry. No wait passes
// MaxWait or the deadline, and a wait ends early, with the context's
// error, when the context ends.
//
// # The retry budget
//
// Retries draw on a budget shared by all requests of the Transport, after
// Finagle's: over any 10 seconds, at most BudgetRatio (20%) of the
// requests sent, plus 10 × BudgetMinRate (10 per second), may be retried.
// Once it is spent, refusals are returned as they come. Stats.Budget says
// what is left.
//
// # Adaptive throttling
//
// The Transport counts, over the last 30 seconds, the attempts it wanted
// to make (requests) and those the server did not refuse (accepts: any
// answer but 503 and 429; errors are not accepts, nor are they counted if
// the caller canceled the context). It refuses an attempt locally, before
// sending, with probability max(0, (requests − K·accepts) / (requests + 1))
// (Google's SRE book, "Handling Overload"), where K is ThrottleK for a
// request of level Critical, the default. Lower levels (the level comes
// from priority.FromContext) get a smaller K and are throttled sooner,
// CriticalPlus a larger one: with K = 2, a level starts being throttled
// when fewer than 80% (Sheddable), 67% (SheddablePlus), 50% (Critical) or
// 33% (CriticalPlus) of recent attempts were accepted. The throttle stays
// off while fewer than 10 attempts are in the window, and refuses at most
// 90% of attempts, so that some still reach the server and see it
// recover. A first attempt refused locally returns a *ThrottledError.
//
// # What the server is told
//
// Each retry carries its number in AttemptHeader ("Frontdoor-Attempt: 2"
// on the first retry). A server whose shed or concurrency limiter
// classifies with Demote refuses retries before first attempts. A request
// whose context has a level (priority.WithLevel) carries it in
// priority.DefaultHeader, as priority.Transport sends it, unless the
// request has that header already.
//
// # Limits
//
// The budget and the throttle are per Transport: clients in other
// processes do not share them, and each knows only what its own client
// sees. The throttle reacts over its window, not at once: when every
// attempt is refused, it starts after about 15 seconds for Critical
// requests (sooner for lower levels); when the server recovers, it lets
// more through as accepts come back and stops within about a minute. A
// server that answers slowly but within the deadline, without refusing,
// is not throttled.
package retry
