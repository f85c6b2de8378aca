package prioritize

import "github.com/frontdoor-go/frontdoor/priority"

// headerValues[i] is the value of the level header for the level of index
// i, shared by every default refusal.
var headerValues = func() (v [priority.NumLevels][]string) {
	for i, l := range priority.Levels() {
		v[i] = []string{l.String()}
	}
	return v
}()

// SetHeader sets priority.DefaultHeader on h to the name of level l, on a
// refused request: shared, so allocation-free, when shared is true (the
// limiter writes the refusal itself at once); a value of its own when
// user code (a Reject handler) will see it and may change it in place.
func SetHeader(h map[string][]string, l priority.Level, shared bool) {
	v := headerValues[l.Index()]
	if !shared {
		v = []string{v[0]}
	}
	h[priority.DefaultHeader] = v
}
