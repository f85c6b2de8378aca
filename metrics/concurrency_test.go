package metrics_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/metrics"
)

// Known traffic through a Limiter with one slot and a queue of one, on
// synctest's clock so that every duration is exact, gives exactly these
// metrics, mid-flight and at the end:
//
//   - R1 runs 8 ms (service time 8 ms, deviation 4 ms: planned 16 ms);
//   - H takes the slot and holds it 100 ms;
//   - Q1 queues and waits out its 100 ms budget: timed_out, waited 0.1 s;
//   - Q2 finds the queue full: queue_full;
//   - Q3 queues and its client hangs up at once: abandoned, waited 0 s;
//   - Q4 arrives with its deadline already passed: timed_out, never queued;
//   - Q5 queues and its context is canceled while its client stays
//     connected: canceled, waited 0 s;
//   - H returns after 100 ms; a sample counts for at most twice the plan
//     (8 ms + 2 × 4 ms of deviation), so as 32 ms: service time
//     8 + (32-8)/8 = 11 ms.
func TestConcurrencyCollector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := concurrency.New(concurrency.Options{Limit: 1, MaxQueue: 1, QueueTimeout: 100 * time.Millisecond})
		c := metrics.NewConcurrencyCollector("render", l)
		hold := make(chan struct{})
		h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/sleep":
				time.Sleep(8 * time.Millisecond)
			case "/hold":
				<-hold
			}
		}))
		serve := func(ctx context.Context, path string) *httptest.ResponseRecorder {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, "GET", path, nil))
			return rec
		}
		wantCode := func(name string, rec *httptest.ResponseRecorder, code int) {
			t.Helper()
			if rec.Code != code {
				t.Errorf("%s: status %d, want %d", name, rec.Code, code)
			}
		}
		bg := context.Background()

		wantCode("R1", serve(bg, "/sleep"), 200)
		go serve(bg, "/hold")
		synctest.Wait()
		q1 := make(chan *httptest.ResponseRecorder, 1)
		go func() { q1 <- serve(bg, "/") }()
		synctest.Wait()
		mfs := collect(t, c)
		for _, g := range []string{"running", "queued"} {
			if got := findValue(t, mfs, "frontdoor_concurrency_"+g, nil); got != 1 {
				t.Errorf("%s with H running and Q1 queued = %v, want 1", g, got)
			}
		}
		wantCode("Q2", serve(bg, "/"), 503)
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		wantCode("Q1", <-q1, 503)

		ctx, cancel := context.WithCancel(bg)
		q3 := make(chan *hangUpRecorder, 1)
		go func() { q3 <- serveHangUp(h, httptest.NewRequestWithContext(ctx, "GET", "/", nil)) }()
		synctest.Wait()
		cancel()
		if rec := <-q3; rec.Body.Len() != 0 || rec.Header().Get("Retry-After") != "" || !rec.aborted {
			t.Errorf("Q3, client gone: got %d %q, aborted %v, want nothing written and an abort", rec.Code, rec.Body, rec.aborted)
		}
		dctx, dcancel := context.WithDeadline(bg, time.Now())
		wantCode("Q4", serve(dctx, "/"), 503)
		dcancel()
		cctx, ccancel := context.WithCancel(bg)
		q5 := make(chan *httptest.ResponseRecorder, 1)
		go func() { q5 <- serve(cctx, "/") }()
		synctest.Wait()
		ccancel()
		wantCode("Q5", <-q5, 503)
		close(hold)
		synctest.Wait()

		compareText(t, c, `
# HELP frontdoor_concurrency_abandoned_total Requests whose client left while they were queued; never run, not answered.
# TYPE frontdoor_concurrency_abandoned_total counter
frontdoor_concurrency_abandoned_total{name="render"} 1
# HELP frontdoor_concurrency_admitted_total Requests the limiter passed to the handler.
# TYPE frontdoor_concurrency_admitted_total counter
frontdoor_concurrency_admitted_total{name="render"} 2
# HELP frontdoor_concurrency_limit Requests the limiter runs at once (slots).
# TYPE frontdoor_concurrency_limit gauge
frontdoor_concurrency_limit{name="render"} 1
# HELP frontdoor_concurrency_queue_limit Most requests the limiter queues (0: no queue).
# TYPE frontdoor_concurrency_queue_limit gauge
frontdoor_concurrency_queue_limit{name="render"} 1
# HELP frontdoor_concurrency_queue_wait_seconds Time spent queued by requests that queued, whatever their outcome.
# TYPE frontdoor_concurrency_queue_wait_seconds histogram
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="0.0005"} 2
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="0.001"} 2
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="0.002"} 2
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="0.005"} 2
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="0.01"} 2
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="0.02"} 2
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="0.05"} 2
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="0.1"} 3
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="0.2"} 3
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="0.5"} 3
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="1"} 3
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="2"} 3
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="5"} 3
frontdoor_concurrency_queue_wait_seconds_bucket{name="render",le="+Inf"} 3
frontdoor_concurrency_queue_wait_seconds_sum{name="render"} 0.1
frontdoor_concurrency_queue_wait_seconds_count{name="render"} 3
# HELP frontdoor_concurrency_queued Requests waiting for a slot now.
# TYPE frontdoor_concurrency_queued gauge
frontdoor_concurrency_queued{name="render"} 0
# HELP frontdoor_concurrency_refused_total Requests the limiter answered with 503, by reason.
# TYPE frontdoor_concurrency_refused_total counter
frontdoor_concurrency_refused_total{name="render",reason="canceled"} 1
frontdoor_concurrency_refused_total{name="render",reason="over_budget"} 0
frontdoor_concurrency_refused_total{name="render",reason="queue_full"} 1
frontdoor_concurrency_refused_total{name="render",reason="timed_out"} 2
# HELP frontdoor_concurrency_running Requests running the handler now.
# TYPE frontdoor_concurrency_running gauge
frontdoor_concurrency_running{name="render"} 0
# HELP frontdoor_concurrency_service_time_seconds Moving average of the handler's duration.
# TYPE frontdoor_concurrency_service_time_seconds gauge
frontdoor_concurrency_service_time_seconds{name="render"} 0.011
`)
		for _, p := range lint(t, c) {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	})
}
