package shed

import "github.com/frontdoor-go/frontdoor/priority"

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

	// Levels counts per level, lowest first (index
	// priority.Level.Index, as in priority.Levels), with Options.Priority
	// or Tenant; nil without.
	Levels *[priority.NumLevels]LevelStats `json:",omitempty"`
}

// LevelStats are the counters of one priority level.
type LevelStats struct {
	Admitted uint64 // requests of the level let through, and successful TryAcquireLevel calls
	Refused  uint64 // requests of the level refused, and failed TryAcquireLevel calls
	// Reserved is how many places the level now leaves free for the
	// levels above it.
	Reserved int
}

// Stats returns the Shedder's counters. Each field is read atomically; the
// fields are not one consistent snapshot under load.
func (s *Shedder) Stats() Stats {
	st := Stats{
		Admitted: s.admitted.Load(),
		Refused:  s.refused.Load(),
		Exempt:   s.exempted.Load(),
		InFlight: s.counter.Load(),
		Peak:     s.counter.Peak(),
		Limit:    s.Limit(),
		Adaptive: signals(s.ctl),
	}
	if s.levels != nil {
		st.Levels = new([priority.NumLevels]LevelStats)
		for i, l := range priority.Levels() {
			a, r := s.levels.gate.Counts(l)
			st.Levels[i] = LevelStats{Admitted: a, Refused: r, Reserved: int(s.levels.gate.Reserved(l))}
		}
	}
	return st
}
