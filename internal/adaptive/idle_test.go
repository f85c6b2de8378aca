package adaptive

import (
	"testing"
	"testing/synctest"
	"time"
)

// A server that sat idle before its first load (a process started ahead
// of traffic) starts as fast as one loaded from its first instant.
func TestColdStartAfterIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newTestController(t, quiet)
		time.Sleep(30 * time.Second)
		s := newSim(t, c, poolSize, poolSize, time.Second)
		s.setRate(3 * poolCap)
		s.setService(about(poolSvc))
		s.runAll(10 * time.Second)
		for sec := 5; sec < 10; sec++ {
			if g := s.goodput(sec, sec+1); g < 0.95*poolCap {
				t.Errorf("goodput in second %d = %.0f/s, want >= 95%% of %.0f/s", sec, g, poolCap)
			}
		}
	})
}
