package metrics_test

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdoor-go/frontdoor/metrics"
)

func TestInstrumentStatusAndBytes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		h         http.HandlerFunc
		class     string
		bytes     uint64
		wantCode  int // what the client got
		wantWrite string
	}{
		{"nothing written", func(w http.ResponseWriter, r *http.Request) {}, "2xx", 0, 200, ""},
		{"write", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }, "2xx", 5, 200, "hello"},
		{"write string", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello!") }, "2xx", 6, 200, "hello!"},
		{"404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, "4xx", 19, 404, "404 page not found\n"},
		{"301", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(301) }, "3xx", 0, 301, ""},
		{"503 then superfluous 200", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(503)
			w.WriteHeader(200)
		}, "5xx", 0, 503, ""},
		{"write then superfluous 500", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("ok"))
			w.WriteHeader(500)
		}, "2xx", 2, 200, "ok"},
		{"101", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(101) }, "1xx", 0, 101, ""},
		{"999", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(999) }, "other", 0, 999, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
			rec := httptest.NewRecorder()
			in.Handler(tc.h).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if rec.Code != tc.wantCode || rec.Body.String() != tc.wantWrite {
				t.Fatalf("response = %d %q, want %d %q", rec.Code, rec.Body, tc.wantCode, tc.wantWrite)
			}
			st := in.Stats()
			for class, cs := range st.Classes {
				want := metrics.ClassStats{}
				if class == tc.class {
					want.Requests, want.Bytes = 1, tc.bytes
				}
				if cs.Requests != want.Requests || cs.Bytes != want.Bytes || cs.Duration.Count != want.Requests {
					t.Errorf("Stats().Classes[%q] = %d requests, %d bytes, duration count %d, want %d, %d, %d",
						class, cs.Requests, cs.Bytes, cs.Duration.Count, want.Requests, want.Bytes, want.Requests)
				}
			}
			if len(st.Classes) != 6 {
				t.Errorf("len(Stats().Classes) = %d, want 6", len(st.Classes))
			}
		})
	}
}

// An informational response (103 Early Hints) is not the status: on a
// real server the client gets the 204 that follows, and so is it counted.
func TestInstrumentEarlyHints(t *testing.T) {
	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
	srv := httptest.NewServer(in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusNoContent)
	})))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("status = %d, want 204", res.StatusCode)
	}
	st := in.Stats()
	if got1, got2 := st.Classes["1xx"].Requests, st.Classes["2xx"].Requests; got1 != 0 || got2 != 1 {
		t.Errorf("1xx, 2xx requests = %d, %d, want 0, 1", got1, got2)
	}
}

// Bytes copied with io.Copy reach the writer through ReadFrom, on a real
// server; they are counted too.
func TestInstrumentReadFrom(t *testing.T) {
	const size = 100_000
	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
	srv, returned := serveOnce(in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(io.ReaderFrom); !ok {
			t.Error("writer is not an io.ReaderFrom")
		}
		n, err := w.(io.ReaderFrom).ReadFrom(io.LimitReader(zeros{}, size))
		if n != size || err != nil {
			t.Errorf("ReadFrom() = %d, %v, want %d, nil", n, err, size)
		}
	})))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if n != size {
		t.Fatalf("client read %d bytes, want %d", n, size)
	}
	<-returned
	if got := in.Stats().Classes["2xx"]; got.Requests != 1 || got.Bytes != size {
		t.Errorf("2xx = %d requests, %d bytes, want 1, %d", got.Requests, got.Bytes, size)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Latency goes into the right buckets with the right sum; synctest's clock
// makes the durations exact.
func TestInstrumentLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{Buckets: []float64{0.01, 0.1, 1}})
		for _, d := range []time.Duration{0, 10 * time.Millisecond, 50 * time.Millisecond, 2 * time.Second} {
			in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(d)
			})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
		}
		want := `
# HELP frontdoor_http_request_duration_seconds Time from the request reaching the handler to the handler returning, by status class.
# TYPE frontdoor_http_request_duration_seconds histogram
frontdoor_http_request_duration_seconds_bucket{code="1xx",name="api",le="0.01"} 0
frontdoor_http_request_duration_seconds_bucket{code="1xx",name="api",le="0.1"} 0
frontdoor_http_request_duration_seconds_bucket{code="1xx",name="api",le="1"} 0
frontdoor_http_request_duration_seconds_bucket{code="1xx",name="api",le="+Inf"} 0
frontdoor_http_request_duration_seconds_sum{code="1xx",name="api"} 0
frontdoor_http_request_duration_seconds_count{code="1xx",name="api"} 0
frontdoor_http_request_duration_seconds_bucket{code="2xx",name="api",le="0.01"} 2
frontdoor_http_request_duration_seconds_bucket{code="2xx",name="api",le="0.1"} 3
frontdoor_http_request_duration_seconds_bucket{code="2xx",name="api",le="1"} 3
frontdoor_http_request_duration_seconds_bucket{code="2xx",name="api",le="+Inf"} 4
frontdoor_http_request_duration_seconds_sum{code="2xx",name="api"} 2.06
frontdoor_http_request_duration_seconds_count{code="2xx",name="api"} 4
`
		h := in.Stats().Classes["2xx"].Duration
		if want := []uint64{2, 1, 0, 1}; !slices.Equal(h.Counts, want) || h.Count != 4 || h.Sum != 2.06 {
			t.Errorf("Stats 2xx Duration = counts %v count %d sum %v, want per bucket %v, 4, 2.06", h.Counts, h.Count, h.Sum, want)
		}
		got := collectText(t, in)
		start := strings.Index(got, "# HELP frontdoor_http_request_duration_seconds")
		end := strings.Index(got, `frontdoor_http_request_duration_seconds_bucket{code="3xx"`)
		if start < 0 || end < 0 {
			t.Fatalf("no duration histogram in:\n%s", got)
		}
		if got := got[start:end]; strings.TrimSpace(got) != strings.TrimSpace(want) {
			t.Errorf("histogram:\n%s\nwant:\n%s", got, strings.TrimSpace(want))
		}
	})
}

func TestInstrumentRegisters(t *testing.T) {
	reg := newRegistry()
	h := metrics.Instrument("api", reg)(okHandler)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if got := gatherValue(t, reg, "frontdoor_http_requests_total", map[string]string{"name": "api", "code": "2xx"}); got != 1 {
		t.Errorf("requests_total{code=2xx} = %v, want 1", got)
	}
	if got := gatherValue(t, reg, "frontdoor_http_response_bytes_total", map[string]string{"code": "2xx"}); got != float64(len(body)) {
		t.Errorf("response_bytes_total{code=2xx} = %v, want %d", got, len(body))
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("second Instrument(api) on one registry did not panic")
		} else if err, ok := r.(error); !ok || !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
			t.Errorf("panic = %v, want a prometheus.AlreadyRegisteredError", r)
		}
	}()
	metrics.Instrument("api", reg)
}

// TestInstrumentBucketBounds checks that any bounds NewInstrumenter
// accepts count latencies right: a last +Inf is the histogram's own +Inf
// bucket, and bounds too large for nanoseconds still hold every request.
func TestInstrumentBucketBounds(t *testing.T) {
	tests := []struct {
		name       string
		buckets    []float64
		wantBounds []float64
		wantCounts []uint64 // per bucket, for requests of 0s and 2s
	}{
		{"last +Inf dropped", []float64{0.1, math.Inf(1)}, []float64{0.1}, []uint64{1, 1}},
		{"only +Inf", []float64{math.Inf(1)}, []float64{}, []uint64{2}},
		{"beyond nanoseconds", []float64{1, 1e10}, []float64{1, 1e10}, []uint64{1, 1, 0}},
		{"two beyond nanoseconds", []float64{1, 1e10, 1e12}, []float64{1, 1e10, 1e12}, []uint64{1, 1, 0, 0}},
		{"largest float", []float64{1, math.MaxFloat64}, []float64{1, math.MaxFloat64}, []uint64{1, 1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{Buckets: tt.buckets})
				for _, d := range []time.Duration{0, 2 * time.Second} {
					in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						time.Sleep(d)
					})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
				}
				h := in.Stats().Classes["2xx"].Duration
				if !slices.Equal(h.Bounds, tt.wantBounds) || !slices.Equal(h.Counts, tt.wantCounts) || h.Count != 2 {
					t.Errorf("Duration = bounds %v counts %v count %d, want bounds %v counts %v count 2",
						h.Bounds, h.Counts, h.Count, tt.wantBounds, tt.wantCounts)
				}
				got := collectText(t, in)
				if want := `frontdoor_http_request_duration_seconds_bucket{code="2xx",name="api",le="+Inf"} 2` + "\n"; !strings.Contains(got, want) {
					t.Errorf("collected metrics:\n%s\nwant a line %q", got, want)
				}
				if n := strings.Count(got, `code="2xx",name="api",le="+Inf"`); n != 1 {
					t.Errorf("%d +Inf buckets for 2xx, want 1", n)
				}
			})
		})
	}
}

// TestInstrumentBucketsRefused checks that bounds client_golang would
// refuse, and NaN, panic at construction with the package prefix.
func TestInstrumentBucketsRefused(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, b := range [][]float64{
		{nan}, {nan, 1}, {1, nan}, {1, nan, 2},
		{inf, 1}, {1, inf, inf}, {math.Inf(-1), 1},
		{1, 1}, {2, 1}, {0, 1}, {-1},
	} {
		t.Run(fmt.Sprint(b), func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				if !strings.HasPrefix(msg, "metrics: ") {
					t.Errorf("NewInstrumenter(Buckets: %v) panic = %q, want a \"metrics: \" message", b, msg)
				}
			}()
			metrics.NewInstrumenter("api", metrics.InstrumenterOptions{Buckets: b})
		})
	}
}
