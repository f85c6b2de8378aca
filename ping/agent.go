package ping

import (
	"cmp"
	"math/bits"
	"net"
	"strconv"
	"sync"
	"time"
)

// Defaults of AgentOptions; a zero field means its default.
const (
	// DefaultMinWeight is the weight, in percent, reported at full load.
	DefaultMinWeight = 1
	// DefaultAgentTimeout bounds each agent connection.
	DefaultAgentTimeout = 2 * time.Second
)

// AgentOptions configures an Agent. The zero value reports "up ready"
// with no weight while Ready.
type AgentOptions struct {
	// Checker supplies the state: Ready answers "up ready N%", Draining
	// answers "drain", Maint answers "maint". Nil means always Ready.
	Checker *Checker
	// Load supplies the load, read at every check: the requests in flight
	// and the limit they are held to. The weight is the free share of the
	// limit, 100% when idle, down to MinWeight when inFlight reaches it.
	// Because it is read at every check, the weight follows a limit that
	// changes at run time. A Shedder's counters are the usual source:
	//
	//	Load: func() (int, int) {
	//		st := s.Stats()
	//		return int(st.InFlight), int(st.Limit)
	//	},
	//
	// Nil, or a limit <= 0 (no limit known), means no weight is reported
	// (HAProxy keeps the last one). Load must be safe for concurrent use.
	Load func() (inFlight, limit int)
	// MinWeight is the weight, in percent, reported at full load, so a busy
	// server still gets a share (0% would mean drain). Zero means
	// DefaultMinWeight; a value outside 0..100 panics.
	MinWeight int
	// Timeout bounds each agent connection, so a silent client never holds
	// one, nor Close, for longer. Zero means DefaultAgentTimeout; a
	// negative value panics.
	Timeout time.Duration
}

// An Agent answers HAProxy's agent-check on its own TCP port: one line per
// connection, such as "up ready 75%\n", "drain\n" or "maint\n", so HAProxy
// sends less to a busy server and nothing to a draining one. Configure
// HAProxy with "agent-check agent-port P agent-inter 1s" on the server
// line, beside a regular "check" (the agent cannot report a dead process).
//
// Because the agent answers "ready" whenever its Checker is Ready, it
// undoes a DRAIN or MAINT set on the HAProxy CLI; run "disable agent" on
// the CLI first to take a server out by hand.
//
// Create it with NewAgent; the zero value is not usable. An Agent is safe
// for concurrent use by multiple goroutines.
type Agent struct {
	chk     *Checker
	load    func() (int, int)
	minW    int
	timeout time.Duration

	mu     sync.Mutex
	lns    map[net.Listener]struct{}
	closed bool
	done   chan struct{} // closed by Close, ends a pause between accepts
	conns  sync.WaitGroup
}

// NewAgent returns an Agent configured by opts. It panics, with a message
// starting "ping: ", if MinWeight is outside 0..100 or Timeout is
// negative.
func NewAgent(opts AgentOptions) *Agent {
	if opts.MinWeight < 0 || opts.MinWeight > 100 {
		panic("ping: AgentOptions.MinWeight must be in 0..100")
	}
	if opts.Timeout < 0 {
		panic("ping: AgentOptions.Timeout must be >= 0")
	}
	return &Agent{
		chk:     opts.Checker,
		load:    opts.Load,
		minW:    cmp.Or(opts.MinWeight, DefaultMinWeight),
		timeout: cmp.Or(opts.Timeout, DefaultAgentTimeout),
		lns:     make(map[net.Listener]struct{}),
		done:    make(chan struct{}),
	}
}

// Reply returns the line the agent sends now, newline included.
func (a *Agent) Reply() string {
	return string(a.appendReply(make([]byte, 0, 32)))
}

func (a *Agent) appendReply(b []byte) []byte {
	s := Ready
	if a.chk != nil {
		s = a.chk.State()
	}
	if s != Ready {
		return append(append(b, s.String()...), '\n')
	}
	b = append(b, "up ready"...)
	if a.load != nil {
		if n, limit := a.load(); limit > 0 {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(a.weight(n, limit)), 10)
			b = append(b, '%')
		}
	}
	return append(b, '\n')
}

// weight is the free share of limit (> 0) in percent, rounded down, at
// least minW. The product 100 × free is taken in 128 bits: in 64 it
// wraps for limits above MaxInt64/100.
func (a *Agent) weight(n, limit int) int {
	free := uint64(limit - min(max(n, 0), limit))
	hi, lo := bits.Mul64(100, free)
	w, _ := bits.Div64(hi, lo, uint64(limit)) // hi < limit: free <= limit
	return min(max(int(w), a.minW), 100)
}
