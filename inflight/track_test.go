package inflight_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/frontdoor-go/frontdoor/inflight"
)

func TestTrack(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name      string
		handler   func(http.ResponseWriter, *http.Request)
		wantPanic any
	}{
		{"returns", func(w http.ResponseWriter, r *http.Request) {}, nil},
		{"panics", func(w http.ResponseWriter, r *http.Request) { panic(errBoom) }, errBoom},
		{"aborts", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }, http.ErrAbortHandler},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c inflight.Counter
			var inside int64
			h := inflight.Track(&c)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				inside = c.Load()
				tt.handler(w, r)
			}))
			func() {
				defer func() {
					if got := recover(); got != tt.wantPanic {
						t.Errorf("recovered %v, want %v", got, tt.wantPanic)
					}
				}()
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
			}()
			if inside != 1 {
				t.Errorf("Load() inside the handler = %d, want 1", inside)
			}
			if got := c.Load(); got != 0 {
				t.Errorf("Load() after the handler = %d, want 0", got)
			}
		})
	}
}

func TestTrackNilCounterPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Track(nil) did not panic")
		}
	}()
	inflight.Track(nil)
}
