package bodybuffer

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// pipeWriter is a recorder whose read deadline is the deadline of the
// pipe the body comes from, as on a real connection.
type pipeWriter struct {
	*httptest.ResponseRecorder
	c net.Conn
}

func (w pipeWriter) SetReadDeadline(t time.Time) error { return w.c.SetReadDeadline(t) }

// uploadStep is one step of a client script: wait, then send.
type uploadStep struct {
	wait time.Duration
	send string
}

// repeat returns n steps sending piece every gap.
func repeat(n int, gap time.Duration, piece string) []uploadStep {
	s := make([]uploadStep, n)
	for i := range s {
		s[i] = uploadStep{gap, piece}
	}
	return s
}

// TestSlowUploads runs client scripts over an in-memory connection on a
// fake clock: which uploads are cut off with 408, and when.
func TestSlowUploads(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		budget  time.Duration // context deadline, 0: none
		cl      int64
		steps   []uploadStep
		status  int
		within  time.Duration // the answer comes at most this long after the start
		atLeast time.Duration // ... and at least this long
	}{
		{"trickle below the default rate", Options{}, 0, 1000,
			repeat(500, 2*time.Second, "xx"), 408, DefaultMinRateGrace + time.Second, DefaultMinRateGrace},
		{"steady above the default rate", Options{}, 0, 3000,
			repeat(100, 100*time.Millisecond, strings.Repeat("r", 30)), 200, 11 * time.Second, 0},
		{"burst then pause within the rate", Options{}, 0, 24000,
			[]uploadStep{{0, strings.Repeat("b", 12000)}, {40 * time.Second, strings.Repeat("b", 12000)}}, 200, 41 * time.Second, 0},
		{"rate check disabled", Options{MinRate: -1}, 0, 20,
			repeat(10, 2*time.Second, "xx"), 200, 21 * time.Second, 0},
		{"custom rate and grace", Options{MinRate: 1000, MinRateGrace: time.Second}, 0, 10000,
			repeat(100, 100*time.Millisecond, strings.Repeat("s", 50)), 408, 2 * time.Second, time.Second},
		{"context deadline bounds the read", Options{}, 3 * time.Second, 1000,
			[]uploadStep{{0, strings.Repeat("c", 500)}, {time.Hour, "c"}}, 408, 3 * time.Second, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, cli := net.Pipe()
				var client sync.WaitGroup
				defer client.Wait()
				client.Go(func() {
					for _, s := range tt.steps {
						time.Sleep(s.wait)
						if _, err := io.WriteString(cli, s.send); err != nil {
							return
						}
					}
					cli.Close() // the end of the body
				})
				b := New(tt.o)
				r := httptest.NewRequest("POST", "/", io.NopCloser(srv))
				r.ContentLength = tt.cl
				if tt.budget > 0 {
					ctx, cancel := context.WithTimeout(r.Context(), tt.budget)
					defer cancel()
					r = r.WithContext(ctx)
				}
				w := pipeWriter{httptest.NewRecorder(), srv}
				start := time.Now()
				b.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
				})).ServeHTTP(w, r)
				took := time.Since(start)
				srv.Close()
				cli.Close()
				if w.Code != tt.status || took > tt.within || took < tt.atLeast {
					t.Errorf("status %d after %v, want %d within [%v, %v]", w.Code, took, tt.status, tt.atLeast, tt.within)
				}
			})
		})
	}
}
