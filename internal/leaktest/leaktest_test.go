package leaktest

import (
	"testing"
	"time"
)

func TestLeaked(t *testing.T) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-stop
	}()
	if got := Leaked(10 * time.Millisecond); len(got) != 1 {
		t.Fatalf("Leaked() with one blocked goroutine = %d stacks, want 1:\n%v", len(got), got)
	}
	close(stop)
	<-done
	if got := Leaked(time.Second); len(got) != 0 {
		t.Errorf("Leaked() after it ended = %d stacks, want 0:\n%v", len(got), got)
	}
}

func TestMain(m *testing.M) { VerifyTestMain(m) }
