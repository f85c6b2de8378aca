package ping

// exhausted is empty on Plan 9, whose errors are strings.
var exhausted []error
