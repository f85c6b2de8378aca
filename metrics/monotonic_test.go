package metrics_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/priority"
	"github.com/frontdoor-go/frontdoor/shed"
)

// Every counter of a Shedder with levels only ever rises from one scrape
// to the next, also while requests of every level are admitted and
// refused during the scrapes: Prometheus reads a decrease as a restart.
func TestShedCountersNeverDecreaseUnderLoad(t *testing.T) {
	s := shed.New(shed.Options{Limit: 2, Priority: priority.Header("")})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.NewShedCollector("api", s))

	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			l := priority.Levels()[i%priority.NumLevels]
			for !stop.Load() {
				if s.TryAcquireLevel(l) {
					s.ReleaseLevel(l)
				}
			}
		})
	}
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()

	last := map[string]float64{} // by metric name and labels
	for range 500 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				if m.Counter == nil {
					continue
				}
				key := mf.GetName()
				for _, l := range m.GetLabel() {
					key += " " + l.GetName() + "=" + l.GetValue()
				}
				v := m.GetCounter().GetValue()
				if prev, ok := last[key]; ok && v < prev {
					t.Fatalf("%s went down from %v to %v", key, prev, v)
				}
				last[key] = v
			}
		}
	}
}
