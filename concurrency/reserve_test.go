package concurrency

import (
	"runtime"
	"sync"
	"testing"
)

// ReserveP adds one P on its first call in a process and nothing on later
// ones. The test starts and ends as if ReserveP had never been called (the
// GOMAXPROCS it found, a fresh once), so it holds on every run of go test
// -count.
func TestReserveP(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	reserveOnce = sync.Once{}
	t.Cleanup(func() {
		runtime.GOMAXPROCS(before)
		reserveOnce = sync.Once{}
	})
	if got := ReserveP(); got != before+1 {
		t.Errorf("ReserveP() = %d, want %d", got, before+1)
	}
	if got := ReserveP(); got != before+1 {
		t.Errorf("second ReserveP() = %d, want %d: only the first call changes GOMAXPROCS", got, before+1)
	}
}
