// Package retryafter computes the Retry-After value of a refusal: whole
// seconds, rounded up, within bounds every client can read.
package retryafter

import (
	"strconv"
	"time"
)

// Max is the largest Retry-After sent, in seconds: one day.
//
// RFC 9110 allows any non-negative integer, but an overloaded server that
// asks clients to stay away longer than a day is misconfigured (a
// duration in the wrong unit, math.MaxInt64 meaning "forever"), and
// clients that turn the value into milliseconds in a 32-bit integer, or
// add it to a timestamp, still get it right: a day is 86,400,000 ms,
// well below 2^31.
const Max = 24 * 60 * 60

// Seconds returns d in whole seconds, rounded up, at least 1 (a refusal
// never says "retry at once") and at most Max. It never overflows: any
// Duration, math.MaxInt64 and negative values included, gives a value in
// 1..Max.
func Seconds(d time.Duration) int64 {
	s := int64(d / time.Second)
	if d%time.Second > 0 {
		s++
	}
	return min(max(s, 1), Max)
}

// Value returns Seconds(d) formatted as the header value.
func Value(d time.Duration) string {
	return strconv.FormatInt(Seconds(d), 10)
}
