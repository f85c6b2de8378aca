package metrics_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
	"github.com/frontdoor-go/frontdoor/metrics"
)

// Known traffic through a Buffer (MaxBytes 100, MemBytes 8) gives exactly
// these metrics: every outcome once or twice, the bytes read for each,
// and the two bodies handed to the handler (5 and 20 bytes) in the size
// histogram.
func TestBodyBufferCollector(t *testing.T) {
	dir := t.TempDir()
	b := bodybuffer.New(bodybuffer.Options{MaxBytes: 100, MemBytes: 8, Dir: dir})
	c := metrics.NewBodyBufferCollector("upload", b)
	calls := 0
	h := b.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		io.Copy(io.Discard, r.Body)
	}))
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		body io.Reader
		cl   int64 // Content-Length; -1: unknown (chunked)
		ctx  context.Context
		gone bool   // the client hangs up when ctx is canceled
		hdr  string // an Upgrade header, if set
		want int    // status; 0: aborted with http.ErrAbortHandler
	}{
		{"buffered", strings.NewReader("hello"), 5, nil, false, "", 200},                              // 5 bytes read
		{"spilled", strings.NewReader(strings.Repeat("s", 20)), 20, nil, false, "", 200},              // 20
		{"declared too large", strings.NewReader(strings.Repeat("d", 101)), 101, nil, false, "", 413}, // 0
		{"read too large", strings.NewReader(strings.Repeat("r", 150)), -1, nil, false, "", 413},      // 101
		{"truncated", iotest.ErrReader(io.ErrUnexpectedEOF), -1, nil, false, "", 400},                 // 0
		{"timed out", iotest.ErrReader(os.ErrDeadlineExceeded), -1, nil, false, "", 408},              // 0
		{"client gone", strings.NewReader("complete"), 8, canceled, true, "", 0},                      // 8
		{"canceled, client connected", strings.NewReader("waiting"), 7, canceled, false, "", 503},
		{"upgrade passes", strings.NewReader("x"), 1, nil, false, "websocket", 200}, // not read
		{"no body", nil, 0, nil, false, "", 200},                                    // not counted
	} {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/", tc.body)
		r.ContentLength = tc.cl
		if tc.ctx != nil {
			r = r.WithContext(tc.ctx)
		}
		if tc.hdr != "" {
			r.Header.Set("Upgrade", tc.hdr)
		}
		if tc.gone {
			if rec := serveHangUp(h, r); !rec.aborted || rec.Body.Len() != 0 {
				t.Errorf("%s: aborted %v, body %q, want an abort and nothing written", tc.name, rec.aborted, rec.Body)
			}
			continue
		}
		got := func() (code int) {
			defer func() {
				if v := recover(); v != nil {
					if v != http.ErrAbortHandler {
						t.Errorf("%s: panic %v, want http.ErrAbortHandler", tc.name, v)
					}
					code = 0
				}
			}()
			h.ServeHTTP(rec, r)
			return rec.Code
		}()
		if got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
	// With its directory gone a body over MemBytes cannot spool: 500,
	// after reading the 8 bytes that fit in memory.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("e", 20))))
	if rec.Code != 500 {
		t.Errorf("spool error: status %d, want 500", rec.Code)
	}
	if calls != 4 {
		t.Errorf("handler calls = %d, want 4 (2 buffered, upgrade, no body)", calls)
	}

	compareText(t, c, `
# HELP frontdoor_bodybuffer_aborted_total Requests dropped unanswered before the handler ran, by reason.
# TYPE frontdoor_bodybuffer_aborted_total counter
frontdoor_bodybuffer_aborted_total{name="upload",reason="client_gone"} 1
# HELP frontdoor_bodybuffer_body_size_bytes Sizes of the request bodies handed to the handler.
# TYPE frontdoor_bodybuffer_body_size_bytes histogram
frontdoor_bodybuffer_body_size_bytes_bucket{name="upload",le="1024"} 2
frontdoor_bodybuffer_body_size_bytes_bucket{name="upload",le="4096"} 2
frontdoor_bodybuffer_body_size_bytes_bucket{name="upload",le="16384"} 2
frontdoor_bodybuffer_body_size_bytes_bucket{name="upload",le="65536"} 2
frontdoor_bodybuffer_body_size_bytes_bucket{name="upload",le="262144"} 2
frontdoor_bodybuffer_body_size_bytes_bucket{name="upload",le="1.048576e+06"} 2
frontdoor_bodybuffer_body_size_bytes_bucket{name="upload",le="4.194304e+06"} 2
frontdoor_bodybuffer_body_size_bytes_bucket{name="upload",le="1.6777216e+07"} 2
frontdoor_bodybuffer_body_size_bytes_bucket{name="upload",le="6.7108864e+07"} 2
frontdoor_bodybuffer_body_size_bytes_bucket{name="upload",le="+Inf"} 2
frontdoor_bodybuffer_body_size_bytes_sum{name="upload"} 25
frontdoor_bodybuffer_body_size_bytes_count{name="upload"} 2
# HELP frontdoor_bodybuffer_buffered_total Request bodies read whole and handed to the handler.
# TYPE frontdoor_bodybuffer_buffered_total counter
frontdoor_bodybuffer_buffered_total{name="upload"} 2
# HELP frontdoor_bodybuffer_memory_bytes Bytes of body buffers held now.
# TYPE frontdoor_bodybuffer_memory_bytes gauge
frontdoor_bodybuffer_memory_bytes{name="upload"} 0
# HELP frontdoor_bodybuffer_memory_peak_bytes Highest bytes of body buffers held at once.
# TYPE frontdoor_bodybuffer_memory_peak_bytes gauge
frontdoor_bodybuffer_memory_peak_bytes{name="upload"} 1024
# HELP frontdoor_bodybuffer_passed_total Requests passed to the handler untouched (upgrades, streams, exempt).
# TYPE frontdoor_bodybuffer_passed_total counter
frontdoor_bodybuffer_passed_total{name="upload"} 1
# HELP frontdoor_bodybuffer_read_bytes_total Request body bytes read from clients, whatever the outcome.
# TYPE frontdoor_bodybuffer_read_bytes_total counter
frontdoor_bodybuffer_read_bytes_total{name="upload"} 149
# HELP frontdoor_bodybuffer_reading Request bodies being read now.
# TYPE frontdoor_bodybuffer_reading gauge
frontdoor_bodybuffer_reading{name="upload"} 0
# HELP frontdoor_bodybuffer_refused_total Requests answered with an error before the handler ran, by reason.
# TYPE frontdoor_bodybuffer_refused_total counter
frontdoor_bodybuffer_refused_total{name="upload",reason="canceled"} 1
frontdoor_bodybuffer_refused_total{name="upload",reason="spool_error"} 1
frontdoor_bodybuffer_refused_total{name="upload",reason="timed_out"} 1
frontdoor_bodybuffer_refused_total{name="upload",reason="too_large"} 2
frontdoor_bodybuffer_refused_total{name="upload",reason="truncated"} 1
# HELP frontdoor_bodybuffer_spilled_total Request bodies larger than the memory bound, spooled to a temporary file.
# TYPE frontdoor_bodybuffer_spilled_total counter
frontdoor_bodybuffer_spilled_total{name="upload"} 1
`)
	for _, p := range lint(t, c) {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}
