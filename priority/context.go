package priority

import "context"

type contextKey struct{}

// WithLevel returns a copy of ctx that carries l: FromContext, Context and
// Transport read it.
func WithLevel(ctx context.Context, l Level) context.Context {
	return context.WithValue(ctx, contextKey{}, l)
}

// FromContext returns the level stored in ctx by WithLevel, and whether
// there is one; without one it returns Default and false.
func FromContext(ctx context.Context) (Level, bool) {
	l, ok := ctx.Value(contextKey{}).(Level)
	if !ok {
		return Default, false
	}
	return l, true
}
