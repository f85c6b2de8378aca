package shed

// Stats is a snapshot of a Shedder's counters.
type Stats struct {
	Admitted uint64 // requests let through to next, and successful TryAcquire calls
	Refused  uint64 // requests refused (default 503 or Reject), and failed TryAcquire calls
	Exempt   uint64 // requests passed by Options.Exempt, not counted in flight
	InFlight int64  // requests in flight now (the Counter's value)
	Peak     int64  // the Counter's high-water mark
	Limit    int    // the current limit

	// Adaptive holds the signals behind a limit that finds itself; nil
	// for a fixed limit.
	Adaptive *Signals `json:",omitempty"`
}

// Stats returns the Shedder's counters. Each field is read atomically; the
// fields are not one consistent snapshot under load.
func (s *Shedder) Stats() Stats {
	return Stats{
		Admitted: s.admitted.Load(),
		Refused:  s.refused.Load(),
		Exempt:   s.exempted.Load(),
		InFlight: s.counter.Load(),
		Peak:     s.counter.Peak(),
		Limit:    s.Limit(),
		Adaptive: signals(s.ctl),
	}
}
