// Package leaktest checks that the tests of a package leave no goroutine
// running: every package that starts goroutines calls VerifyTestMain from
// its TestMain.
package leaktest

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// VerifyTestMain runs the tests and, if they passed, fails the test binary
// when goroutines other than the testing framework's and the runtime's are
// still running five seconds later.
func VerifyTestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if stacks := Leaked(5 * time.Second); len(stacks) > 0 {
			fmt.Fprintf(os.Stderr, "leaktest: %d goroutines still running after the tests:\n\n%s\n",
				len(stacks), strings.Join(stacks, "\n\n"))
			code = 1
		}
	}
	os.Exit(code)
}

// Leaked returns the stacks of the goroutines, other than the caller's and
// those that belong to the testing framework or the runtime, still running
// after waiting up to wait for them to end.
func Leaked(wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		stacks := others()
		if len(stacks) == 0 || time.Now().After(deadline) {
			return stacks
		}
		time.Sleep(delay)
	}
}

// others returns the stacks of every goroutine but the caller's, less
// those that are expected to outlive a test.
func others() []string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	all := strings.Split(strings.TrimSpace(string(buf)), "\n\n")
	var out []string
	for _, s := range all[1:] { // all[0] is the caller's
		if !expected(s) {
			out = append(out, s)
		}
	}
	return out
}

// expected reports whether stack belongs to a goroutine that the testing
// package or the runtime keeps for the life of the process.
func expected(stack string) bool {
	for _, f := range []string{
		"testing.RunTests",
		"testing.(*T).Run",
		"testing.(*M).",
		"testing.runFuzzTests",
		"os/signal.signal_recv",
		"os/signal.loop",
		"runtime.ensureSigM",
	} {
		if strings.Contains(stack, f) {
			return true
		}
	}
	return false
}
