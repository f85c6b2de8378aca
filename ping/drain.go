package ping

// State is the serving state of a Checker, as health checks and the
// HAProxy agent report it.
type State int32

const (
	// Ready serves normally: the ready path answers 200 and the agent
	// answers "up ready" with a weight.
	Ready State = iota
	// Draining asks load balancers to stop sending new requests while the
	// ones in flight finish: the ready path answers 503, responses carry
	// Connection: close, and the agent answers "drain".
	Draining
	// Maint is Draining, except that the agent answers "maint": HAProxy
	// sends nothing at all and stops its health checks of this server
	// until the agent answers "ready" again.
	Maint
)

// String returns "ready", "drain" or "maint", the agent's words.
func (s State) String() string {
	switch s {
	case Ready:
		return "ready"
	case Draining:
		return "drain"
	case Maint:
		return "maint"
	}
	return "State(invalid)"
}

// Drain puts c in state Draining. It is the same as SetState(Draining).
func (c *Checker) Drain() { c.SetState(Draining) }

// Draining reports whether c is draining (in state Draining or Maint).
func (c *Checker) Draining() bool { return c.State() != Ready }

// SetState sets the state of c; Ready ends a drain. It panics on a State
// that is not one of the constants.
func (c *Checker) SetState(s State) {
	if s < Ready || s > Maint {
		panic("ping: invalid State")
	}
	c.state.Store(int32(s))
}

// State returns the current state of c.
func (c *Checker) State() State { return State(c.state.Load()) }
