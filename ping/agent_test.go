package ping_test

import (
	"bufio"
	"errors"
	"io"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/ping"
	"github.com/frontdoor-go/frontdoor/shed"
)

// load returns an AgentOptions.Load that reports *inFlight and *limit as
// they are at each call.
func load(inFlight, limit *int) func() (int, int) {
	return func() (int, int) { return *inFlight, *limit }
}

func TestAgentReply(t *testing.T) {
	tests := []struct {
		name     string
		state    ping.State
		inflight int
		limit    int
		minW     int
		noLoad   bool
		want     string
	}{
		{"idle", ping.Ready, 0, 4, 0, false, "up ready 100%\n"},
		{"one of four", ping.Ready, 1, 4, 0, false, "up ready 75%\n"},
		{"three of four", ping.Ready, 3, 4, 0, false, "up ready 25%\n"},
		{"full uses DefaultMinWeight", ping.Ready, 4, 4, 0, false, "up ready 1%\n"},
		{"over limit clamps", ping.Ready, 9, 4, 0, false, "up ready 1%\n"},
		{"negative in flight counts as idle", ping.Ready, -3, 4, 0, false, "up ready 100%\n"},
		{"MinWeight floor", ping.Ready, 3, 4, 50, false, "up ready 50%\n"},
		{"MinWeight 100", ping.Ready, 4, 4, 100, false, "up ready 100%\n"},
		{"rounds down", ping.Ready, 1, 3, 0, false, "up ready 66%\n"},
		{"no Load", ping.Ready, 0, 0, 0, true, "up ready\n"},
		{"limit 0 reports no weight", ping.Ready, 2, 0, 0, false, "up ready\n"},
		{"negative limit reports no weight", ping.Ready, 2, -1, 0, false, "up ready\n"},
		{"draining", ping.Draining, 1, 4, 0, false, "drain\n"},
		{"maint", ping.Maint, 0, 4, 0, false, "maint\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chk := ping.New(ping.Options{})
			chk.SetState(tt.state)
			opts := ping.AgentOptions{Checker: chk, MinWeight: tt.minW}
			if !tt.noLoad {
				opts.Load = load(&tt.inflight, &tt.limit)
			}
			if got := ping.NewAgent(opts).Reply(); got != tt.want {
				t.Errorf("Reply() = %q, want %q", got, tt.want)
			}
		})
	}
	if got := ping.NewAgent(ping.AgentOptions{}).Reply(); got != "up ready\n" {
		t.Errorf("zero AgentOptions: Reply() = %q, want \"up ready\\n\"", got)
	}
}

// TestAgentWeightAnyLimit checks the weight for every limit Load may
// report, the largest included: 100% when idle, the free share rounded
// down, never a wrapped-around product.
func TestAgentWeightAnyLimit(t *testing.T) {
	tests := []struct {
		limit, inflight int
		want            string
	}{
		{math.MaxInt, 0, "up ready 100%\n"},
		{math.MaxInt, 1, "up ready 99%\n"},
		{math.MaxInt, math.MinInt, "up ready 100%\n"},
		{math.MaxInt / 99, 0, "up ready 100%\n"},
		{math.MaxInt / 2, 3, "up ready 99%\n"},
		{1, 0, "up ready 100%\n"},
		{1, 1, "up ready 1%\n"},
		{1, math.MaxInt, "up ready 1%\n"},
	}
	for _, tt := range tests {
		a := ping.NewAgent(ping.AgentOptions{Load: load(&tt.inflight, &tt.limit)})
		if got := a.Reply(); got != tt.want {
			t.Errorf("limit %d, %d in flight: Reply() = %q, want %q", tt.limit, tt.inflight, got, tt.want)
		}
	}
}

// TestAgentFollowsShedLimit checks that an agent fed by a Shedder's Stats,
// as AgentOptions.Load shows, reports the limit SetLimit sets, at the next
// check.
func TestAgentFollowsShedLimit(t *testing.T) {
	s := shed.New(shed.Options{Limit: 4})
	a := ping.NewAgent(ping.AgentOptions{Load: func() (int, int) {
		st := s.Stats()
		return int(st.InFlight), int(st.Limit)
	}})
	s.Counter().Inc() // one request in flight
	defer s.Counter().Dec()
	check := func(want string) {
		t.Helper()
		if got := a.Reply(); got != want {
			t.Errorf("limit %d: Reply() = %q, want %q", s.Limit(), got, want)
		}
	}
	check("up ready 75%\n")
	s.SetLimit(2)
	check("up ready 50%\n")
	s.SetLimit(10)
	check("up ready 90%\n")
	s.SetLimit(1)
	check("up ready 1%\n")
}

func TestNewAgentPanics(t *testing.T) {
	tests := []struct {
		name string
		opts ping.AgentOptions
	}{
		{"MinWeight over 100", ping.AgentOptions{MinWeight: 101}},
		{"negative MinWeight", ping.AgentOptions{MinWeight: -1}},
		{"Timeout -1", ping.AgentOptions{Timeout: -1}},
		{"negative Timeout", ping.AgentOptions{Timeout: -time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantPingPanic(t, func() { ping.NewAgent(tt.opts) })
		})
	}
}

// startAgent serves a on a loopback port and returns its address; the
// agent is closed at the end of the test.
func startAgent(t *testing.T, a *ping.Agent) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.ServeAgent(ln) }()
	t.Cleanup(func() {
		a.Close()
		if err := <-done; !errors.Is(err, ping.ErrAgentClosed) {
			t.Errorf("ServeAgent() = %v, want ErrAgentClosed", err)
		}
	})
	return ln.Addr().String()
}

// check does what HAProxy does: connect, optionally send the agent-send
// string, read one line, close.
func check(t *testing.T, addr, send string) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if send != "" {
		if _, err := io.WriteString(conn, send); err != nil {
			t.Fatal(err)
		}
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("reading agent reply: %v (got %q)", err, line)
	}
	return line
}

func TestAgentWire(t *testing.T) {
	var c inflight.Counter
	chk := ping.New(ping.Options{})
	addr := startAgent(t, ping.NewAgent(ping.AgentOptions{Checker: chk, Load: func() (int, int) { return int(c.Load()), 2 }}))

	if got := check(t, addr, ""); got != "up ready 100%\n" {
		t.Errorf("idle reply = %q, want %q", got, "up ready 100%\n")
	}
	c.Inc()
	if got := check(t, addr, "backend/srv1\n"); got != "up ready 50%\n" {
		t.Errorf("reply with agent-send = %q, want %q", got, "up ready 50%\n")
	}
	c.Dec()
	chk.Drain()
	if got := check(t, addr, ""); got != "drain\n" {
		t.Errorf("draining reply = %q, want %q", got, "drain\n")
	}
	chk.SetState(ping.Maint)
	if got := check(t, addr, strings.Repeat("x", 100000)); got != "maint\n" {
		t.Errorf("maint reply after a large send = %q, want %q", got, "maint\n")
	}
	chk.SetState(ping.Ready)
	if got := check(t, addr, ""); got != "up ready 100%\n" {
		t.Errorf("reply after ready = %q, want %q", got, "up ready 100%\n")
	}
}

// TestAgentEndsConnection checks that the agent closes each connection
// after its one line, as HAProxy expects, also when the client says nothing.
func TestAgentEndsConnection(t *testing.T) {
	addr := startAgent(t, ping.NewAgent(ping.AgentOptions{Timeout: 200 * time.Millisecond}))
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if string(b) != "up ready\n" {
		t.Errorf("read %q until EOF, want %q", b, "up ready\n")
	}
}

func TestAgentClose(t *testing.T) {
	a := ping.NewAgent(ping.AgentOptions{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.ServeAgent(ln) }()
	check(t, ln.Addr().String(), "")
	a.Close()
	if err := <-done; !errors.Is(err, ping.ErrAgentClosed) {
		t.Errorf("ServeAgent() after Close = %v, want ErrAgentClosed", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Errorf("Dial after Close succeeded, want the listener closed")
	}
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.ServeAgent(ln2); !errors.Is(err, ping.ErrAgentClosed) {
		t.Errorf("ServeAgent() on a closed Agent = %v, want ErrAgentClosed", err)
	}
}

// FuzzAgent sends arbitrary client bytes (HAProxy's agent-send is free
// text) and checks that the reply is always the agent's one line.
func FuzzAgent(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("backend/srv1\n"))
	f.Add([]byte("\r\n\x00\xff"))
	f.Add([]byte(strings.Repeat("a", 5000)))
	var c inflight.Counter
	c.Inc()
	a := ping.NewAgent(ping.AgentOptions{Load: func() (int, int) { return int(c.Load()), 4 }, Timeout: time.Second})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.ServeAgent(ln) }()
	f.Cleanup(func() { a.Close(); <-done })
	addr := ln.Addr().String()
	f.Fuzz(func(t *testing.T, send []byte) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		go func() { conn.Write(send) }()
		b, err := io.ReadAll(conn)
		if err != nil && len(b) == 0 {
			t.Fatalf("read: %v", err)
		}
		if string(b) != "up ready 75%\n" {
			t.Errorf("reply = %q, want %q", b, "up ready 75%\n")
		}
	})
}
