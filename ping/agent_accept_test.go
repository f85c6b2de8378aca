//go:build !plan9

package ping_test

import (
	"bufio"
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/ping"
)

// flakyListener fails its first Accept calls with errs, then accepts
// pipes; it records the fake time of every Accept call.
type flakyListener struct {
	*pipeListener
	mu    sync.Mutex
	errs  []error
	calls []time.Time
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	l.calls = append(l.calls, time.Now())
	if len(l.errs) > 0 {
		err := l.errs[0]
		l.errs = l.errs[1:]
		l.mu.Unlock()
		return nil, err
	}
	l.mu.Unlock()
	return l.pipeListener.Accept()
}

func acceptError(errno syscall.Errno) error {
	return &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// TestAgentSurvivesAcceptErrors checks that the agent keeps serving
// through the Accept errors of an overloaded process (too many open
// files, no buffer space, timeouts), pausing 5ms, 10ms, ... up to 1s
// between attempts, and still answers afterwards.
func TestAgentSurvivesAcceptErrors(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name      string
		err       error
		n         int
		wantPause []time.Duration
	}{
		{"too many open files", acceptError(syscall.EMFILE), 3, []time.Duration{5 * ms, 10 * ms, 20 * ms}},
		{"too many open files in system", acceptError(syscall.ENFILE), 1, []time.Duration{5 * ms}},
		{"no buffer space", acceptError(syscall.ENOBUFS), 2, []time.Duration{5 * ms, 10 * ms}},
		{"out of memory", acceptError(syscall.ENOMEM), 1, []time.Duration{5 * ms}},
		{"timeout", timeoutError{}, 2, []time.Duration{5 * ms, 10 * ms}},
		{"pause capped at 1s", acceptError(syscall.EMFILE), 10, []time.Duration{
			5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms, time.Second, time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ln := &flakyListener{pipeListener: newPipeListener()}
				for range tt.n {
					ln.errs = append(ln.errs, tt.err)
				}
				a := ping.NewAgent(ping.AgentOptions{})
				done := make(chan error, 1)
				go func() { done <- a.ServeAgent(ln) }()

				for range 2 { // the first connection after the errors, and one more
					conn := ln.dial()
					line, err := bufio.NewReader(conn).ReadString('\n')
					conn.Close()
					if line != "up ready\n" {
						t.Errorf("reply after %d accept errors = %q, %v; want %q", tt.n, line, err, "up ready\n")
					}
				}
				a.Close()
				if err := <-done; !errors.Is(err, ping.ErrAgentClosed) {
					t.Errorf("ServeAgent() = %v, want ErrAgentClosed", err)
				}

				ln.mu.Lock()
				defer ln.mu.Unlock()
				for i, want := range tt.wantPause {
					if i+1 >= len(ln.calls) {
						t.Fatalf("%d Accept calls, want more than %d", len(ln.calls), len(tt.wantPause))
					}
					if got := ln.calls[i+1].Sub(ln.calls[i]); got != want {
						t.Errorf("pause after accept error %d = %v, want %v", i+1, got, want)
					}
				}
			})
		})
	}
}

// TestAgentAcceptErrorEnds checks that an Accept error that will not pass
// ends ServeAgent with that error, and that Close ends a pause between
// retries at once.
func TestAgentAcceptErrorEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		ln := &flakyListener{pipeListener: newPipeListener(), errs: []error{boom}}
		if err := ping.NewAgent(ping.AgentOptions{}).ServeAgent(ln); err != boom {
			t.Errorf("ServeAgent() = %v, want %v", err, boom)
		}

		ln = &flakyListener{pipeListener: newPipeListener()}
		for range 100 {
			ln.errs = append(ln.errs, acceptError(syscall.EMFILE))
		}
		a := ping.NewAgent(ping.AgentOptions{})
		done := make(chan error, 1)
		go func() { done <- a.ServeAgent(ln) }()
		time.Sleep(10*time.Second + 500*time.Millisecond) // in a 1s pause
		synctest.Wait()
		start := time.Now()
		a.Close()
		if err := <-done; !errors.Is(err, ping.ErrAgentClosed) {
			t.Errorf("ServeAgent() = %v, want ErrAgentClosed", err)
		}
		if got := time.Since(start); got != 0 {
			t.Errorf("ServeAgent returned %v after Close, want at once", got)
		}
	})
}
