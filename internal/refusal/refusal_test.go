package refusal_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/refusal"
)

const body = "503 busy\n"

func TestWrite(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter time.Duration
		closeConn  bool
		want       map[string]string
	}{
		{"rounded up", 1500 * time.Millisecond, false, map[string]string{
			"Retry-After": "2", "Content-Type": "text/plain; charset=utf-8",
			"Content-Length": "9", "Connection": "", "X-Content-Type-Options": "",
		}},
		{"zero is one second", 0, false, map[string]string{"Retry-After": "1"}},
		{"capped at a day", 1000 * time.Hour, false, map[string]string{"Retry-After": "86400"}},
		{"connection close", time.Second, true, map[string]string{"Retry-After": "1", "Connection": "close"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			refusal.New(tt.retryAfter, body, tt.closeConn).Write(rec)
			if rec.Code != http.StatusServiceUnavailable {
				t.Errorf("status = %d, want 503", rec.Code)
			}
			if got := rec.Body.String(); got != body {
				t.Errorf("body = %q, want %q", got, body)
			}
			for k, want := range tt.want {
				if got := rec.Header().Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestSetHeaders(t *testing.T) {
	tests := []struct {
		name      string
		closeConn bool
		want      http.Header
	}{
		{"retry after only", false, http.Header{"Retry-After": {"3"}}},
		{"connection close", true, http.Header{"Retry-After": {"3"}, "Connection": {"close"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := refusal.New(3*time.Second, body, tt.closeConn)
			h := make(http.Header)
			f.SetHeaders(h)
			if len(h) != len(tt.want) {
				t.Errorf("SetHeaders set %v, want %v", h, tt.want)
			}
			for k, want := range tt.want {
				if got := h[k]; len(got) != 1 || got[0] != want[0] {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
				h[k][0] = "rewritten" // the caller's own: no other answer sees it
			}
			rec := httptest.NewRecorder()
			f.Write(rec)
			again := make(http.Header)
			f.SetHeaders(again)
			for k, want := range tt.want {
				if got := rec.Header().Get(k); got != want[0] {
					t.Errorf("Write after an in-place change: %s = %q, want %q", k, got, want[0])
				}
				if got := again.Get(k); got != want[0] {
					t.Errorf("SetHeaders after an in-place change: %s = %q, want %q", k, got, want[0])
				}
			}
		})
	}
}

type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(int)             {}

func TestWriteAllocs(t *testing.T) {
	f := refusal.New(time.Second, body, true)
	w := &nopWriter{h: make(http.Header)}
	if n := testing.AllocsPerRun(100, func() { f.Write(w) }); n != 0 {
		t.Errorf("allocations per Write = %v, want 0", n)
	}
}
