package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/frontdoor-go/frontdoor/internal/leaktest"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/ping"
	"github.com/frontdoor-go/frontdoor/shed"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// shedTraffic sends admitted requests through s, then holds the only
// slot (s must have limit 1) while refused more are turned away.
func shedTraffic(t *testing.T, s *shed.Shedder, admitted, refused int) {
	t.Helper()
	serve := func() int {
		rec := httptest.NewRecorder()
		s.Handler(okHandler).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		return rec.Code
	}
	for range admitted - 1 {
		if got := serve(); got != http.StatusOK {
			t.Fatalf("admitted request: status %d, want 200", got)
		}
	}
	// The last admitted request holds the slot while the others are shed.
	s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range refused {
			if got := serve(); got != http.StatusServiceUnavailable {
				t.Fatalf("refused request: status %d, want 503", got)
			}
		}
	})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

func TestShedCollector(t *testing.T) {
	s := shed.New(shed.Options{Limit: 1, Exempt: func(r *http.Request) bool { return r.URL.Path == "/ping" }})
	shedTraffic(t, s, 3, 2)
	s.Handler(okHandler).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/ping", nil))

	want := `
# HELP frontdoor_shed_admitted_total Requests the shedder let through.
# TYPE frontdoor_shed_admitted_total counter
frontdoor_shed_admitted_total{name="api"} 3
# HELP frontdoor_shed_exempt_total Requests passed by the Exempt function, neither counted nor shed.
# TYPE frontdoor_shed_exempt_total counter
frontdoor_shed_exempt_total{name="api"} 1
# HELP frontdoor_shed_in_flight Requests in flight in the shedder's counter.
# TYPE frontdoor_shed_in_flight gauge
frontdoor_shed_in_flight{name="api"} 0
# HELP frontdoor_shed_in_flight_peak Highest in-flight count the shedder's counter reached.
# TYPE frontdoor_shed_in_flight_peak gauge
frontdoor_shed_in_flight_peak{name="api"} 1
# HELP frontdoor_shed_limit The shedder's current limit on requests in flight.
# TYPE frontdoor_shed_limit gauge
frontdoor_shed_limit{name="api"} 1
# HELP frontdoor_shed_refused_total Requests the shedder refused with 503 because the limit was reached.
# TYPE frontdoor_shed_refused_total counter
frontdoor_shed_refused_total{name="api"} 2
`
	compareText(t, metrics.NewShedCollector("api", s), want)
}

// The collector reads the Shedder at each scrape, not once.
func TestShedCollectorReadsAtScrape(t *testing.T) {
	s := shed.New(shed.Options{Limit: 1})
	c := metrics.NewShedCollector("api", s)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	for i := range 3 {
		admitted := gatherValue(t, reg, "frontdoor_shed_admitted_total", nil)
		if admitted != float64(i) {
			t.Errorf("after %d requests: admitted = %v, want %d", i, admitted, i)
		}
		s.Handler(okHandler).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}
	s.SetLimit(7)
	if got := gatherValue(t, reg, "frontdoor_shed_limit", nil); got != 7 {
		t.Errorf("limit after SetLimit(7) = %v, want 7", got)
	}
}

func TestCounterCollector(t *testing.T) {
	var c inflight.Counter
	c.Inc()
	c.Inc()
	c.Dec()
	want := `
# HELP frontdoor_in_flight Requests in flight in the counter.
# TYPE frontdoor_in_flight gauge
frontdoor_in_flight{name="site"} 1
# HELP frontdoor_in_flight_peak Highest count the counter reached.
# TYPE frontdoor_in_flight_peak gauge
frontdoor_in_flight_peak{name="site"} 2
`
	compareText(t, metrics.NewCounterCollector("site", &c), want)
}

// Several instances of one middleware coexist in one registry under
// different names; the same name twice is refused.
func TestCollectorNames(t *testing.T) {
	a, b := shed.New(shed.Options{Limit: 1}), shed.New(shed.Options{Limit: 2})
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(metrics.NewShedCollector("a", a)); err != nil {
		t.Fatalf("Register(a) = %v", err)
	}
	if err := reg.Register(metrics.NewShedCollector("b", b)); err != nil {
		t.Fatalf("Register(b) = %v, want nil", err)
	}
	if err := reg.Register(metrics.NewShedCollector("a", b)); err == nil {
		t.Error("Register(a) twice = nil, want an error")
	}
	if err := reg.Register(metrics.NewInstrumenter("a", metrics.InstrumenterOptions{})); err != nil {
		t.Errorf("Register(Instrumenter a) beside shed a = %v, want nil", err)
	}
	if err := reg.Register(metrics.NewInstrumenter("a", metrics.InstrumenterOptions{})); err == nil {
		t.Error("Register(Instrumenter a) twice = nil, want an error")
	}
	for name, want := range map[string]float64{"a": 1, "b": 2} {
		if got := gatherValue(t, reg, "frontdoor_shed_limit", map[string]string{"name": name}); got != want {
			t.Errorf("limit{name=%q} = %v, want %v", name, got, want)
		}
	}
}

// promlint finds nothing to say about any metric name, type or help.
func TestLint(t *testing.T) {
	var c inflight.Counter
	s := shed.New(shed.Options{Limit: 1})
	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
	in.Handler(okHandler).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	for name, c := range map[string]prometheus.Collector{
		"shed":        metrics.NewShedCollector("api", s),
		"inflight":    metrics.NewCounterCollector("api", &c),
		"instrument":  in,
		"concurrency": metrics.NewConcurrencyCollector("api", concurrency.New(concurrency.Options{})),
		"bodybuffer":  metrics.NewBodyBufferCollector("api", bodybuffer.New(bodybuffer.Options{})),
		"ping":        metrics.NewPingCollector("api", ping.New(ping.Options{})),
	} {
		for _, p := range lint(t, c) {
			t.Errorf("%s: %s: %s", name, p.Metric, p.Text)
		}
	}
}

func TestCollectorPanics(t *testing.T) {
	s := shed.New(shed.Options{Limit: 1})
	var c inflight.Counter
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"shed empty name", func() { metrics.NewShedCollector("", s) }},
		{"shed nil", func() { metrics.NewShedCollector("api", nil) }},
		{"concurrency empty name", func() { metrics.NewConcurrencyCollector("", concurrency.New(concurrency.Options{})) }},
		{"concurrency nil", func() { metrics.NewConcurrencyCollector("api", nil) }},
		{"bodybuffer empty name", func() { metrics.NewBodyBufferCollector("", bodybuffer.New(bodybuffer.Options{})) }},
		{"bodybuffer nil", func() { metrics.NewBodyBufferCollector("api", nil) }},
		{"ping empty name", func() { metrics.NewPingCollector("", ping.New(ping.Options{})) }},
		{"ping nil", func() { metrics.NewPingCollector("api", nil) }},
		{"counter empty name", func() { metrics.NewCounterCollector("", &c) }},
		{"counter nil", func() { metrics.NewCounterCollector("api", nil) }},
		{"instrumenter empty name", func() { metrics.NewInstrumenter("", metrics.InstrumenterOptions{}) }},
		{"buckets descending", func() { metrics.NewInstrumenter("api", metrics.InstrumenterOptions{Buckets: []float64{1, 0.5}}) }},
		{"buckets zero", func() { metrics.NewInstrumenter("api", metrics.InstrumenterOptions{Buckets: []float64{0, 1}}) }},
		{"publish nil", func() { metrics.Publish("x", nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.HasPrefix(msg, "metrics: ") {
					t.Errorf("panic = %v, want a message starting with %q", r, "metrics: ")
				}
			}()
			tc.f()
		})
	}
}
