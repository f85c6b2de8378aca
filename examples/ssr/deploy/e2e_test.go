package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// program finds a real program: on PATH or in /usr/sbin, where Debian puts
// haproxy and nginx. Outside CI a missing program skips the test; in CI
// (CI=true) it fails it, since .ci/run installs both.
func program(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if p := filepath.Join("/usr/sbin", name); fileExists(p) {
		return p
	}
	msg := fmt.Sprintf("%s is not installed; the end-to-end test runs the real haproxy and nginx (apt-get install -y haproxy nginx)", name)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// renderJob is a render request of about 60 KB, so nginx has a real body to
// buffer.
func renderJob() []byte {
	items := make([]map[string]any, 600)
	for i := range items {
		items[i] = map[string]any{"id": i, "name": "item " + strconv.Itoa(i), "tags": []string{"new", "sale", "red"}}
	}
	b, _ := json.Marshal(map[string]any{"component": "ProductList", "props": map[string]any{"items": items}})
	return b
}

// sample is HAProxy's view of one server at one moment.
type sample struct {
	at time.Time
	ServerStat
}

// TestRollingRestart runs 3 ssr instances behind the real HAProxy and
// nginx, drives steady load through nginx, and restarts every instance in
// turn (SIGTERM: drain, wait, Shutdown, exit; then start again). The client
// must see no failed request and no connection error; HAProxy must see
// each instance's agent say "drain" before the process exits, and "up" with
// a weight after it is back; /ping through nginx must never reach HAProxy
// or Go.
func TestRollingRestart(t *testing.T) {
	haproxyBin, nginxBin := program(t, "haproxy"), program(t, "nginx")
	dir := t.TempDir()
	bin := filepath.Join(dir, "ssr")
	if err := buildSSR(bin); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := Start(ctx, Config{Dir: dir, Bin: bin, Work: 300, HAProxyBin: haproxyBin, NginxBin: nginxBin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})

	// HAProxy's view, sampled every 20ms until the end of the test.
	var (
		mu      sync.Mutex
		samples = map[string][]sample{}
	)
	sampling := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if s, err := c.Servers(); err == nil {
				now := time.Now()
				mu.Lock()
				for name, st := range s {
					samples[name] = append(samples[name], sample{now, st})
				}
				mu.Unlock()
			}
			select {
			case <-sampling:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})

	// Steady closed-loop load: 4 clients rendering through nginx (more
	// than the 3 instances take at once, so HAProxy queues), one client
	// checking /ping through nginx.
	var (
		renders, pings atomic.Int64
		failures       atomic.Int64
		firstFailures  = make(chan string, 10)
	)
	fail := func(format string, args ...any) {
		failures.Add(1)
		select {
		case firstFailures <- fmt.Sprintf(format, args...):
		default:
		}
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	body := renderJob()
	load := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-load:
					return
				default:
				}
				renders.Add(1)
				res, err := client.Post(c.URL()+"/render", "application/json", bytes.NewReader(body))
				if err != nil {
					fail("POST /render: %v", err)
					continue
				}
				b, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil || res.StatusCode != http.StatusOK || !bytes.HasPrefix(b, []byte(`<div data-hypernova-key="ProductList">`)) {
					fail("POST /render: %d %.80q %v", res.StatusCode, b, err)
				}
			}
		})
	}
	wg.Go(func() {
		for {
			select {
			case <-load:
				return
			case <-time.After(10 * time.Millisecond):
			}
			pings.Add(1)
			res, err := client.Get(c.URL() + "/ping")
			if err != nil {
				fail("GET /ping: %v", err)
				continue
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || string(b) != "pong\n" || res.Header.Get("X-Answered-By") != "nginx" {
				fail("GET /ping through nginx = %d %q X-Answered-By=%q, want nginx's 200 \"pong\\n\"",
					res.StatusCode, b, res.Header.Get("X-Answered-By"))
			}
		}
	})

	time.Sleep(time.Second) // steady state before the first restart
	exited := make([]time.Time, 3)
	restarted := make([]time.Time, 3)
	for i := range 3 {
		if err := c.StopInstance(i); err != nil {
			t.Fatal(err)
		}
		exited[i] = time.Now()
		if err := c.StartInstance(ctx, i); err != nil {
			t.Fatal(err)
		}
		restarted[i] = time.Now()
		name := c.Name(i)
		if err := c.waitStatus(ctx, func(s map[string]ServerStat) bool { return s[name].Status == "UP" }); err != nil {
			t.Fatalf("%s after restart: %v", name, err)
		}
	}
	time.Sleep(500 * time.Millisecond) // steady state after the last restart
	close(load)
	close(sampling)
	wg.Wait()

	t.Logf("%d renders and %d pings through nginx during a rolling restart of 3 instances", renders.Load(), pings.Load())
	if n := failures.Load(); n != 0 {
		close(firstFailures)
		for f := range firstFailures {
			t.Error(f)
		}
		t.Errorf("%d failed requests, want 0", n)
	}

	// HAProxy saw each instance drain, through its agent, while the
	// process was still running, and saw it back UP after the restart.
	for i := range 3 {
		name := c.Name(i)
		var drainedAt time.Time
		var backUp bool
		var seq []string
		for _, s := range samples[name] {
			if len(seq) == 0 || !strings.HasPrefix(seq[len(seq)-1], s.Status+" ") {
				seq = append(seq, fmt.Sprintf("%s (agent %q, check %q, weight %d)", s.Status, s.AgentDesc, s.CheckDesc, s.Weight))
			}
			if drainedAt.IsZero() && s.Status == "DRAIN (agent)" {
				drainedAt = s.at
			}
			if s.at.After(restarted[i]) && s.Status == "UP" {
				backUp = true
			}
		}
		t.Logf("%s: HAProxy status sequence %v", name, seq)
		switch {
		case drainedAt.IsZero():
			t.Errorf("%s: HAProxy never showed DRAIN from the agent", name)
		case !drainedAt.Before(exited[i]):
			t.Errorf("%s: HAProxy showed DRAIN at %v, after the process exited at %v", name, drainedAt, exited[i])
		}
		if !backUp {
			t.Errorf("%s: HAProxy never showed UP after the restart", name)
		}
	}

	// The weights HAProxy used are the agent's: with limit 4, "up ready
	// 100%" or "75%" (one request in flight: HAProxy sends at most one,
	// maxconn 1) of the configured weight 100; 0 only while draining.
	seenBusy := false
	for name, ss := range samples {
		for _, s := range ss {
			switch {
			case s.Status == "UP" && (s.Weight == 100 || s.Weight == 75):
				seenBusy = seenBusy || s.Weight == 75
			case s.Status != "UP" && s.Weight == 0:
			case s.Status != "UP":
				// Going down or coming back: the weight is the last one reported.
			default:
				t.Errorf("%s: HAProxy weight %d with status %s (agent %q), want 100 or 75", name, s.Weight, s.Status, s.AgentDesc)
			}
		}
	}
	if !seenBusy {
		t.Errorf("HAProxy never lowered a busy instance's weight to 75, want the agent's weight followed")
	}

	// HAProxy's maxconn and the instances' limits agree: no instance
	// refused a render itself (shed, the render queue, the body limit),
	// and the restarted instances rendered.
	for i := range 3 {
		mf, err := scrapeInstance(c.InstanceURL(i) + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"frontdoor_shed_refused_total", "frontdoor_concurrency_refused_total",
			"frontdoor_bodybuffer_refused_total", "frontdoor_bodybuffer_aborted_total"} {
			if got := sum(mf, m); got != 0 {
				t.Errorf("%s: %s = %v, want 0", c.Name(i), m, got)
			}
		}
		if got := sum(mf, "frontdoor_concurrency_limit"); got != 1 {
			t.Errorf("%s: frontdoor_concurrency_limit = %v, want 1 (HAProxy's maxconn)", c.Name(i), got)
		}
		t.Logf("%s after its restart: %v renders", c.Name(i), sum(mf, "frontdoor_concurrency_admitted_total"))
	}

	// /ping never reached HAProxy (so neither Go): HAProxy's frontend
	// counted exactly the renders.
	st, err := c.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := st["ssr/FRONTEND"]["req_tot"], strconv.FormatInt(renders.Load(), 10); got != want {
		t.Errorf("HAProxy frontend req_tot = %s, want %s (the renders only; /ping must stay in nginx)", got, want)
	}
}

// scrapeInstance fetches and parses an instance's /metrics.
func scrapeInstance(url string) (map[string]*dto.MetricFamily, error) {
	res, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, res.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(res.Body)
}

// sum adds the values of every sample of a counter or gauge family, -1 if
// the family is missing.
func sum(mf map[string]*dto.MetricFamily, name string) float64 {
	f, ok := mf[name]
	if !ok {
		return -1
	}
	var v float64
	for _, m := range f.GetMetric() {
		v += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return v
}
