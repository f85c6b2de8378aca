package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/ping"
)

// scrape fetches url and parses it as Prometheus's text format.
func scrape(t *testing.T, client *http.Client, url string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics = %d, want 200", res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return mf
}

// metric returns the sample of family name whose labels include labels
// ("k=v" pairs), or nil.
func metric(mf map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	f := mf[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		for _, kv := range labels {
			k, v, _ := strings.Cut(kv, "=")
			found := false
			for _, lp := range m.GetLabel() {
				found = found || (lp.GetName() == k && lp.GetValue() == v)
			}
			if !found {
				continue next
			}
		}
		return m
	}
	return nil
}

// value returns the value of a counter or gauge sample, or, for a
// histogram, of its _count or _sum ("name_count", "name_sum").
func value(t *testing.T, mf map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	base, part := name, ""
	if m := metric(mf, name, labels...); m == nil {
		for _, suffix := range []string{"_count", "_sum"} {
			if b, ok := strings.CutSuffix(name, suffix); ok && mf[b].GetType() == dto.MetricType_HISTOGRAM {
				base, part = b, suffix
			}
		}
	}
	m := metric(mf, base, labels...)
	switch {
	case m == nil:
		t.Errorf("%s%v: not in /metrics", name, labels)
		return -1
	case part == "_count":
		return float64(m.GetHistogram().GetSampleCount())
	case part == "_sum":
		return m.GetHistogram().GetSampleSum()
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	default:
		return m.GetGauge().GetValue()
	}
}

type want struct {
	name   string
	labels []string
	value  float64
}

func check(t *testing.T, when string, mf map[string]*dto.MetricFamily, wants []want) {
	t.Helper()
	for _, w := range wants {
		if got := value(t, mf, w.name, w.labels...); got != w.value {
			t.Errorf("%s: %s%v = %v, want %v", when, w.name, w.labels, got, w.value)
		}
	}
}

// waitFor polls cond; it is for states that other goroutines reach
// (a request parked in the queue), not for timing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// TestMetrics sends known traffic through the whole chain — renders, a bad
// job, a body over the limit, a request refused by the full render queue,
// one shed while the chain is full, health checks — and checks that
// /metrics, scraped while requests are held and again after, shows exactly
// that traffic, middleware by middleware.
func TestMetrics(t *testing.T) {
	const (
		okJob  = `{"component":"App","props":{"title":"hi"}}`
		badJob = `{"component":`
	)
	bigJob := `{"component":"App","props":{"x":"` + strings.Repeat("a", 2000) + `"}}`

	entered, release := make(chan struct{}), make(chan struct{})
	render := renderHandler("t", 1)
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("hold") {
			entered <- struct{}{}
			<-release
		}
		render.ServeHTTP(w, r)
	})
	chk := ping.New(ping.Options{ReadyPath: "/ping", LivePath: "/livez"})
	var inFlight inflight.Counter
	cfg := config{sizing: sizing{renders: 1, queue: 1, limit: 3}, queueTimeout: time.Minute, maxBody: 1 << 10}
	s := newServer(chk, &inFlight, cfg, app)
	srv := httptest.NewServer(s)
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()

	var appBytes = map[int]int{} // response bytes the app wrote, by status
	var mu sync.Mutex
	do := func(method, path, body string, wantCode int) {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		res, err := client.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", method, path, err)
			return
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != wantCode {
			t.Errorf("%s %s = %d %q %v, want %d", method, path, res.StatusCode, b, err, wantCode)
		}
		if strings.HasPrefix(string(b), "<div") || strings.HasPrefix(string(b), "bad render job") {
			mu.Lock()
			appBytes[res.StatusCode] += len(b)
			mu.Unlock()
		}
	}

	// Sequential traffic: 3 renders, a bad job (the app answers 400), a
	// body over max-body (bodybuffer answers 413 before reading it),
	// health checks (ping answers before shed).
	for range 3 {
		do("POST", "/render", okJob, 200)
	}
	do("POST", "/render", badJob, 400)
	do("POST", "/render", bigJob, 413)
	do("GET", "/ping", "", 200)
	do("GET", "/ping", "", 200)
	do("GET", "/livez", "", 200)

	// Fill the chain: one render running (held in the app), one queued
	// for the single slot.
	var held sync.WaitGroup
	var releaseOnce sync.Once
	releaseAll := func() { releaseOnce.Do(func() { close(release) }) }
	defer held.Wait()
	defer releaseAll() // also when a check fails fatally, before srv.Close
	held.Go(func() { do("POST", "/render?hold", okJob, 200) })
	<-entered
	held.Go(func() { do("POST", "/render", okJob, 200) })
	waitFor(t, "a render is queued", func() bool { return s.renders.Stats().Queued == 1 })

	// The queue is full: shed admits (2 in flight < 3), bodybuffer reads
	// the body, concurrency refuses.
	do("POST", "/render", okJob, 503)
	waitFor(t, "the refused request has left", func() bool { return inFlight.Load() == 2 })

	// A stalled upload takes the third place in shed's count; the next
	// request is shed.
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST /render HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(okJob)) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head+okJob[:5]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the upload is being read", func() bool { return s.body.Stats().Reading == 1 })
	do("POST", "/render", okJob, 503)

	// While the chain is full, a scrape is neither shed nor queued, and
	// shows the gauges of the requests held.
	mf := scrape(t, client, srv.URL+"/metrics")
	check(t, "chain full", mf, []want{
		{"frontdoor_shed_admitted_total", nil, 9}, // 3 + 400 + 413 + held + queued + queue full + upload
		{"frontdoor_shed_refused_total", nil, 1},
		{"frontdoor_shed_exempt_total", nil, 1}, // this scrape
		{"frontdoor_shed_in_flight", nil, 3},
		{"frontdoor_shed_in_flight_peak", nil, 3},
		{"frontdoor_shed_limit", nil, 3},
		{"frontdoor_bodybuffer_buffered_total", nil, 7},
		{"frontdoor_bodybuffer_refused_total", []string{"reason=too_large"}, 1},
		{"frontdoor_bodybuffer_reading", nil, 1},
		{"frontdoor_concurrency_admitted_total", nil, 5},
		{"frontdoor_concurrency_running", nil, 1},
		{"frontdoor_concurrency_queued", nil, 1},
		{"frontdoor_concurrency_refused_total", []string{"reason=queue_full"}, 1},
		{"frontdoor_http_requests_total", []string{"name=render", "code=2xx"}, 3},
		{"frontdoor_http_requests_total", []string{"name=render", "code=4xx"}, 1},
		{"frontdoor_ping_ready_total", nil, 2},
		{"frontdoor_ping_live_total", nil, 1},
	})

	// Let everything finish: the held render, then the queued one, then
	// the rest of the upload, which finds the slot free.
	releaseAll()
	held.Wait()
	waitFor(t, "only the upload is in flight", func() bool { return inFlight.Load() == 1 })
	if _, err := io.WriteString(conn, okJob[5:]); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.HasPrefix(b, []byte("<div")) {
		t.Fatalf("the stalled upload, completed = %d %q, want 200 and a render", res.StatusCode, b)
	}
	appBytes[200] += len(b)
	waitFor(t, "nothing is in flight", func() bool { return inFlight.Load() == 0 })

	read := 7*len(okJob) + len(badJob) // every body read whole: not the 413 one, not the shed one
	mf = scrape(t, client, srv.URL+"/metrics")
	check(t, "after", mf, []want{
		{"frontdoor_ping_ready_total", nil, 2},
		{"frontdoor_ping_live_total", nil, 1},
		{"frontdoor_ping_not_ready_total", nil, 0},
		{"frontdoor_ping_draining", nil, 0},
		{"frontdoor_ping_state", []string{"state=ready"}, 1},

		{"frontdoor_shed_admitted_total", nil, 9},
		{"frontdoor_shed_refused_total", nil, 1},
		{"frontdoor_shed_exempt_total", nil, 2},
		{"frontdoor_shed_in_flight", nil, 0},
		{"frontdoor_shed_in_flight_peak", nil, 3},

		{"frontdoor_bodybuffer_buffered_total", nil, 8},
		{"frontdoor_bodybuffer_read_bytes_total", nil, float64(read)},
		{"frontdoor_bodybuffer_body_size_bytes_count", nil, 8},
		{"frontdoor_bodybuffer_body_size_bytes_sum", nil, float64(read)},
		{"frontdoor_bodybuffer_refused_total", []string{"reason=too_large"}, 1},
		{"frontdoor_bodybuffer_refused_total", []string{"reason=timed_out"}, 0},
		{"frontdoor_bodybuffer_refused_total", []string{"reason=truncated"}, 0},
		{"frontdoor_bodybuffer_aborted_total", []string{"reason=client_gone"}, 0},
		{"frontdoor_bodybuffer_spilled_total", nil, 0},
		{"frontdoor_bodybuffer_reading", nil, 0},
		{"frontdoor_bodybuffer_memory_bytes", nil, 0},

		{"frontdoor_concurrency_admitted_total", nil, 7},
		{"frontdoor_concurrency_refused_total", []string{"reason=queue_full"}, 1},
		{"frontdoor_concurrency_refused_total", []string{"reason=over_budget"}, 0},
		{"frontdoor_concurrency_refused_total", []string{"reason=timed_out"}, 0},
		{"frontdoor_concurrency_abandoned_total", nil, 0},
		{"frontdoor_concurrency_running", nil, 0},
		{"frontdoor_concurrency_queued", nil, 0},
		{"frontdoor_concurrency_limit", nil, 1},
		{"frontdoor_concurrency_queue_limit", nil, 1},
		{"frontdoor_concurrency_queue_wait_seconds_count", nil, 1}, // the queued render only

		{"frontdoor_http_requests_total", []string{"code=2xx"}, 6},
		{"frontdoor_http_requests_total", []string{"code=4xx"}, 1},
		{"frontdoor_http_requests_total", []string{"code=5xx"}, 0},
		{"frontdoor_http_request_duration_seconds_count", []string{"code=2xx"}, 6},
		{"frontdoor_http_response_bytes_total", []string{"code=2xx"}, float64(appBytes[200])},
		{"frontdoor_http_response_bytes_total", []string{"code=4xx"}, float64(appBytes[400])},
		{"frontdoor_http_panics_total", nil, 0},
	})
	// The chain adds up: what shed let through reached bodybuffer, what
	// bodybuffer handed on reached concurrency, what concurrency ran
	// reached the app.
	sums := []struct{ whole, parts []want }{
		{[]want{{"frontdoor_shed_admitted_total", nil, 0}},
			[]want{{"frontdoor_bodybuffer_buffered_total", nil, 0}, {"frontdoor_bodybuffer_refused_total", []string{"reason=too_large"}, 0}}},
		{[]want{{"frontdoor_bodybuffer_buffered_total", nil, 0}},
			[]want{{"frontdoor_concurrency_admitted_total", nil, 0}, {"frontdoor_concurrency_refused_total", []string{"reason=queue_full"}, 0}}},
		{[]want{{"frontdoor_concurrency_admitted_total", nil, 0}},
			[]want{{"frontdoor_http_requests_total", []string{"code=2xx"}, 0}, {"frontdoor_http_requests_total", []string{"code=4xx"}, 0}}},
	}
	for _, sum := range sums {
		whole := value(t, mf, sum.whole[0].name, sum.whole[0].labels...)
		var parts float64
		for _, p := range sum.parts {
			parts += value(t, mf, p.name, p.labels...)
		}
		if whole != parts {
			t.Errorf("%s = %v, want the sum of %v = %v", sum.whole[0].name, whole, sum.parts, parts)
		}
	}
	// The registry also has the Go runtime's metrics, GOMAXPROCS among them.
	if got := value(t, mf, "go_sched_gomaxprocs_threads"); got < 1 {
		t.Errorf("go_sched_gomaxprocs_threads = %v, want >= 1", got)
	}
}
