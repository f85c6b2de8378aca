package shed_test

import (
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/shed"
)

var okBody = []byte("ok")

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Write(okBody)
})

// fill returns a Shedder whose counter already holds n requests in flight.
func fill(opts shed.Options, n int) *shed.Shedder {
	if opts.Counter == nil {
		opts.Counter = new(inflight.Counter)
	}
	for range n {
		opts.Counter.Inc()
	}
	return shed.New(opts)
}

// busy is a Reject handler that writes its own status and body.
var busy = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Shed", "yes")
	http.Error(w, "busy", http.StatusServiceUnavailable)
})

func serve(h http.Handler) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	return rec
}

func TestHandler(t *testing.T) {
	tests := []struct {
		name       string
		opts       shed.Options
		inFlight   int
		wantStatus int
		wantHeader map[string]string
		wantBody   string
	}{
		{
			name: "admitted below limit", opts: shed.Options{Limit: 2}, inFlight: 1,
			wantStatus: 200, wantBody: "ok",
			wantHeader: map[string]string{"Retry-After": ""},
		},
		{
			name: "refused at limit", opts: shed.Options{Limit: 2}, inFlight: 2,
			wantStatus: 503, wantBody: "503 service overloaded, retry later\n",
			wantHeader: map[string]string{
				"Retry-After":            "1",
				"Content-Type":           "text/plain; charset=utf-8",
				"Content-Length":         "36",
				"X-Content-Type-Options": "",
				"Connection":             "",
			},
		},
		{
			name: "refused with Connection close", opts: shed.Options{Limit: 1, CloseConnection: true}, inFlight: 1,
			wantStatus: 503,
			wantHeader: map[string]string{"Connection": "close"},
		},
		{
			name: "custom Reject", inFlight: 1,
			opts:       shed.Options{Limit: 1, RetryAfter: 3 * time.Second, Reject: busy},
			wantStatus: 503, wantBody: "busy\n",
			wantHeader: map[string]string{"X-Shed": "yes", "Retry-After": "3", "Connection": ""},
		},
		{
			name: "custom Reject with Connection close", inFlight: 1,
			opts:       shed.Options{Limit: 1, CloseConnection: true, Reject: busy},
			wantStatus: 503, wantBody: "busy\n",
			wantHeader: map[string]string{"X-Shed": "yes", "Retry-After": "1", "Connection": "close"},
		},
		{
			name: "custom Reject not called below limit", inFlight: 0,
			opts:       shed.Options{Limit: 1, Reject: busy},
			wantStatus: 200, wantBody: "ok",
			wantHeader: map[string]string{"X-Shed": "", "Retry-After": ""},
		},
		{
			name: "exempt passes at limit", inFlight: 1,
			opts:       shed.Options{Limit: 1, Exempt: func(r *http.Request) bool { return r.URL.Path == "/" }},
			wantStatus: 200, wantBody: "ok",
		},
		{
			name: "not exempt refused", inFlight: 1,
			opts:       shed.Options{Limit: 1, Exempt: func(r *http.Request) bool { return r.URL.Path == "/health" }},
			wantStatus: 503,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fill(tt.opts, tt.inFlight)
			rec := serve(s.Handler(okHandler))
			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			if tt.wantBody != "" && rec.Body.String() != tt.wantBody {
				t.Errorf("body = %q, want %q", rec.Body.String(), tt.wantBody)
			}
			for k, want := range tt.wantHeader {
				if got := rec.Header().Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			if got := s.Counter().Load(); got != int64(tt.inFlight) {
				t.Errorf("in flight after the request = %d, want %d", got, tt.inFlight)
			}
		})
	}
}

func TestRetryAfterRounding(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "1"}, // default
		{time.Nanosecond, "1"},
		{time.Second, "1"},
		{time.Second + time.Nanosecond, "2"},
		{1500 * time.Millisecond, "2"},
		{30 * time.Second, "30"},
	}
	for _, tt := range tests {
		s := fill(shed.Options{Limit: 1, RetryAfter: tt.d}, 1)
		if got := serve(s.Handler(okHandler)).Header().Get("Retry-After"); got != tt.want {
			t.Errorf("RetryAfter %v: Retry-After = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestRetryAfterAtMostOneDay checks that any RetryAfter New accepts is
// sent as whole seconds between 1 and one day, the largest durations
// included.
func TestRetryAfterAtMostOneDay(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{24 * time.Hour, "86400"},
		{24*time.Hour + time.Nanosecond, "86400"},
		{1000 * time.Hour, "86400"},
		{math.MaxInt64 - time.Second + 2, "86400"},
		{math.MaxInt64, "86400"},
	}
	for _, tt := range tests {
		s := fill(shed.Options{Limit: 1, RetryAfter: tt.d}, 1)
		if got := serve(s.Handler(okHandler)).Header().Get("Retry-After"); got != tt.want {
			t.Errorf("RetryAfter %v: Retry-After = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestNewPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"negative limit", func() { shed.Limit(-1) }, "shed: Limit must be >= 0"},
		{"negative RetryAfter", func() { shed.New(shed.Options{Limit: 1, RetryAfter: -time.Second}) }, "shed: RetryAfter must be >= 0"},
		{"SetLimit zero", func() { shed.New(shed.Options{Limit: 1}).SetLimit(0) }, "shed: SetLimit needs a limit > 0"},
		{"SetLimit negative", func() { shed.New(shed.Options{Limit: 1}).SetLimit(-1) }, "shed: SetLimit needs a limit > 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if got := recover(); got != tt.want {
					t.Errorf("panic = %v, want %q", got, tt.want)
				}
			}()
			tt.f()
		})
	}
}

func TestHandlerPanicReleases(t *testing.T) {
	for _, v := range []any{"boom", http.ErrAbortHandler} {
		s := shed.New(shed.Options{Limit: 1})
		func() {
			defer func() { recover() }()
			serve(s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic(v) })))
		}()
		if got := s.Counter().Load(); got != 0 {
			t.Errorf("panic(%v): in flight = %d, want 0", v, got)
		}
		if got := serve(s.Handler(okHandler)).Code; got != 200 {
			t.Errorf("panic(%v): next status = %d, want 200", v, got)
		}
	}
}

// nopWriter is a ResponseWriter that keeps its header map between requests,
// so allocation counts show only what the middleware allocates.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(int)             {}

func TestNoAllocations(t *testing.T) {
	tests := []struct {
		name     string
		inFlight int
	}{{"admitted", 0}, {"refused", 1}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := fill(shed.Options{Limit: 1, CloseConnection: true}, tt.inFlight).Handler(okHandler)
			w := &nopWriter{h: make(http.Header)}
			r := httptest.NewRequest("GET", "/", nil)
			if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) }); n != 0 {
				t.Errorf("allocations per request = %v, want 0", n)
			}
		})
	}
}

// TestRejectSharesNoHeaderValues checks that the header values a Reject
// handler finds on w are the request's own, not the Shedder's shared
// preformatted ones: Reject rewrites them in place, and neither the next
// refusal of the same Shedder nor a default refusal may see the change.
func TestRejectSharesNoHeaderValues(t *testing.T) {
	for _, closeConn := range []bool{false, true} {
		want := map[string]string{"Retry-After": "1"}
		if closeConn {
			want["Connection"] = "close"
		}
		reject := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			if len(h) != len(want) {
				t.Errorf("Reject got header %v, want only %v", h, want)
			}
			for k, v := range want {
				if got := h.Get(k); got != v {
					t.Errorf("Reject got %s = %q, want %q", k, got, v)
				}
			}
			for _, v := range h {
				v[0] = "rewritten"
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		var c inflight.Counter
		c.Inc() // both Shedders full
		rejecting := shed.New(shed.Options{Limit: 1, Counter: &c, CloseConnection: closeConn, Reject: reject})
		plain := shed.New(shed.Options{Limit: 1, Counter: &c, CloseConnection: closeConn})
		for range 2 {
			serve(rejecting.Handler(okHandler))
			rec := serve(plain.Handler(okHandler))
			for k, v := range want {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("default refusal's %s = %q, want %q", k, got, v)
				}
			}
		}
	}
}
