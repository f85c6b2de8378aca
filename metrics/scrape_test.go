package metrics_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/shed"
)

// A server with Instrument and shed in front of its routes and /metrics
// beside them gets known traffic; a scrape, parsed with client_golang's
// own text parser, shows exactly that traffic.
func TestScrape(t *testing.T) {
	const (
		limit    = 2
		admitted = 7 // besides the limit held ones
		refused  = 5
		appBody  = "hello\n"
	)
	s := shed.New(shed.Options{Limit: limit})
	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewShedCollector("api", s), in)

	entered, release := make(chan struct{}), make(chan struct{})
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			entered <- struct{}{}
			<-release
		}
		io.WriteString(w, appBody)
	})
	mux := http.NewServeMux()
	mux.Handle("/", in.Handler(s.Handler(app)))
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()

	get := func(path string) (int, string) {
		res, err := client.Get(srv.URL + path)
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Error(err)
		}
		return res.StatusCode, string(b)
	}

	// Fill the limit, then send requests that must be shed.
	var held sync.WaitGroup
	for range limit {
		held.Go(func() {
			if code, _ := get("/hold"); code != http.StatusOK {
				t.Errorf("held request: status %d, want 200", code)
			}
		})
		<-entered
	}
	var refusedBytes int
	for range refused {
		code, b := get("/")
		if code != http.StatusServiceUnavailable {
			t.Fatalf("request over the limit: status %d, want 503", code)
		}
		refusedBytes += len(b)
	}
	close(release)
	held.Wait()
	for range admitted {
		if code, b := get("/"); code != http.StatusOK || b != appBody {
			t.Fatalf("request = %d %q, want 200 %q", code, b, appBody)
		}
	}

	// Scrape and parse.
	res, err := client.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("TextToMetricFamilies() error %v", err)
	}
	var mfs []*dto.MetricFamily
	for _, mf := range families {
		mfs = append(mfs, mf)
	}

	ok := float64(limit + admitted)
	api := map[string]string{"name": "api"}
	for _, tc := range []struct {
		metric string
		labels map[string]string
		want   float64
	}{
		{"frontdoor_shed_admitted_total", api, ok},
		{"frontdoor_shed_refused_total", api, refused},
		{"frontdoor_shed_exempt_total", api, 0},
		{"frontdoor_shed_in_flight", api, 0},
		{"frontdoor_shed_in_flight_peak", api, limit},
		{"frontdoor_shed_limit", api, limit},
		{"frontdoor_http_requests_total", map[string]string{"name": "api", "code": "2xx"}, ok},
		{"frontdoor_http_requests_total", map[string]string{"name": "api", "code": "5xx"}, refused},
		{"frontdoor_http_requests_total", map[string]string{"name": "api", "code": "4xx"}, 0},
		{"frontdoor_http_response_bytes_total", map[string]string{"name": "api", "code": "2xx"}, ok * float64(len(appBody))},
		{"frontdoor_http_response_bytes_total", map[string]string{"name": "api", "code": "5xx"}, float64(refusedBytes)},
		{"frontdoor_http_panics_total", api, 0},
	} {
		if got := findValue(t, mfs, tc.metric, tc.labels); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.metric, tc.labels, got, tc.want)
		}
	}
	for code, want := range map[string]uint64{"2xx": limit + admitted, "5xx": refused} {
		m := findMetric(mfs, "frontdoor_http_request_duration_seconds", map[string]string{"code": code})
		if m == nil || m.GetHistogram() == nil {
			t.Fatalf("no duration histogram for %s", code)
		}
		if got := m.GetHistogram().GetSampleCount(); got != want {
			t.Errorf("duration count{code=%s} = %d, want %d", code, got, want)
		}
	}
	if refusedBytes == 0 {
		t.Error("the refusals had no body")
	}
}
