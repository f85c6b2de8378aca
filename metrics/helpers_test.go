package metrics_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// The helpers below do what prometheus/testutil's CollectAndCompare and
// CollectAndLint do; that package needs a diff module this module does not
// require, while promlint and expfmt need nothing new.

// collect registers c alone in a pedantic registry (which checks every
// metric against its Describe) and gathers it.
func collect(t *testing.T, c prometheus.Collector) []*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatalf("Register() error %v", err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("Gather() error %v", err)
	}
	return mfs
}

// collectText returns c's metrics in the Prometheus text format.
func collectText(t *testing.T, c prometheus.Collector) string {
	t.Helper()
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range collect(t, c) {
		if err := enc.Encode(mf); err != nil {
			t.Fatalf("Encode() error %v", err)
		}
	}
	return buf.String()
}

// compareText fails t unless c's metrics are exactly want (leading and
// trailing blank lines ignored).
func compareText(t *testing.T, c prometheus.Collector, want string) {
	t.Helper()
	got := collectText(t, c)
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("collected metrics:\n%s\nwant:\n%s", got, strings.TrimSpace(want))
	}
}

// lint returns promlint's problems with c's metrics.
func lint(t *testing.T, c prometheus.Collector) []promlint.Problem {
	t.Helper()
	problems, err := promlint.NewWithMetricFamilies(collect(t, c)).Lint()
	if err != nil {
		t.Fatalf("Lint() error %v", err)
	}
	return problems
}

// gatherValue returns the value of the one counter or gauge named name
// whose labels include want.
func gatherValue(t *testing.T, g prometheus.Gatherer, name string, want map[string]string) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("Gather() error %v", err)
	}
	return findValue(t, mfs, name, want)
}

func findValue(t *testing.T, mfs []*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	if m := findMetric(mfs, name, want); m != nil {
		if m.Counter != nil {
			return m.GetCounter().GetValue()
		}
		return m.GetGauge().GetValue()
	}
	t.Fatalf("no %s with labels %v", name, want)
	return 0
}

// findMetric returns the first metric of the family name whose labels
// include want, or nil.
func findMetric(mfs []*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metric:
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue metric
				}
			}
			return m
		}
	}
	return nil
}

func newRegistry() *prometheus.Registry { return prometheus.NewPedanticRegistry() }

// hangUpRecorder is a ResponseRecorder for a client that hangs up when
// its request's context is canceled, as net/http reports it: the context
// is canceled, then CloseNotify fires.
type hangUpRecorder struct {
	*httptest.ResponseRecorder
	closed  chan bool
	aborted bool // the handler panicked with http.ErrAbortHandler
}

func (r *hangUpRecorder) CloseNotify() <-chan bool { return r.closed }

// serveHangUp serves req through h for a client that hangs up when req's
// context is canceled, and records an abort.
func serveHangUp(h http.Handler, req *http.Request) (rec *hangUpRecorder) {
	rec = &hangUpRecorder{ResponseRecorder: httptest.NewRecorder(), closed: make(chan bool, 1)}
	stop := context.AfterFunc(req.Context(), func() { rec.closed <- true })
	defer stop()
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			rec.aborted = true
		}
	}()
	h.ServeHTTP(rec, req)
	return rec
}
