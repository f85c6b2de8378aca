package metrics_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/priority"
	"github.com/frontdoor-go/frontdoor/shed"
)

func TestShedCollectorLevels(t *testing.T) {
	s := shed.New(shed.Options{Limit: 1, Priority: priority.Header("")})
	serve := func(l priority.Level) int {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set(priority.DefaultHeader, l.String())
		rec := httptest.NewRecorder()
		s.Handler(okHandler).ServeHTTP(rec, r)
		return rec.Code
	}
	serve(priority.Sheddable)
	serve(priority.Critical)
	s.TryAcquire() // holds the only place
	serve(priority.Sheddable)
	serve(priority.Sheddable)
	s.Release()

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.NewShedCollector("api", s))
	for _, tt := range []struct {
		metric, level string
		want          float64
	}{
		{"frontdoor_shed_level_admitted_total", "sheddable", 1},
		{"frontdoor_shed_level_refused_total", "sheddable", 2},
		{"frontdoor_shed_level_admitted_total", "critical", 2}, // with TryAcquire
		{"frontdoor_shed_level_refused_total", "critical", 0},
		{"frontdoor_shed_level_reserved", "critical", 0},
	} {
		if got := gatherValue(t, reg, tt.metric, map[string]string{"name": "api", "level": tt.level}); got != tt.want {
			t.Errorf("%s{level=%q} = %v, want %v", tt.metric, tt.level, got, tt.want)
		}
	}
	mfs, _ := reg.Gather()
	if m := findMetric(mfs, "frontdoor_shed_level_admitted_total", map[string]string{"level": "critical_plus"}); m != nil {
		t.Errorf("a level without requests is exported: %v", m)
	}
}

func TestConcurrencyCollectorLevels(t *testing.T) {
	l := concurrency.New(concurrency.Options{Limit: 1, MaxQueue: -1, Priority: priority.Context})
	hold, err := l.Acquire(priority.WithLevel(context.Background(), priority.CriticalPlus))
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r = r.WithContext(priority.WithLevel(r.Context(), priority.SheddablePlus))
	rec := httptest.NewRecorder()
	l.Handler(okHandler).ServeHTTP(rec, r)
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", rec.Code)
	}
	hold()

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.NewConcurrencyCollector("render", l))
	for _, tt := range []struct {
		metric, level string
		want          float64
	}{
		{"frontdoor_concurrency_level_admitted_total", "critical_plus", 1},
		{"frontdoor_concurrency_level_refused_total", "sheddable_plus", 1},
	} {
		if got := gatherValue(t, reg, tt.metric, map[string]string{"name": "render", "level": tt.level}); got != tt.want {
			t.Errorf("%s{level=%q} = %v, want %v", tt.metric, tt.level, got, tt.want)
		}
	}
}
