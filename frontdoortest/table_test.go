package frontdoortest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/frontdoortest"
	"github.com/frontdoor-go/frontdoor/shed"
)

// TestRefusals is the table test a user writes: wrap the handler as in
// production, hold as many requests inside as the limit admits, and check
// what the next one gets.
func TestRefusals(t *testing.T) {
	get := func() *http.Request { return httptest.NewRequest("GET", "/", nil) }
	post := func(body string) func() *http.Request {
		return func() *http.Request { return httptest.NewRequest("POST", "/", strings.NewReader(body)) }
	}
	tests := []struct {
		name     string
		wrap     func(http.Handler) http.Handler
		hold     int // requests held inside the handler first
		req      func() *http.Request
		wantCode int
	}{
		{"shed admits up to its limit", shed.Limit(2), 1, get, http.StatusOK},
		{"shed refuses past its limit", shed.Limit(2), 2, get, http.StatusServiceUnavailable},
		{"concurrency refuses with no queue", concurrency.New(concurrency.Options{Limit: 1, MaxQueue: -1}).Handler, 1, get, http.StatusServiceUnavailable},
		{"bodybuffer passes a body within MaxBytes", bodybuffer.Limit(10), 0, post("0123456789"), http.StatusOK},
		{"bodybuffer refuses a body over MaxBytes", bodybuffer.Limit(10), 0, post("0123456789!"), http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				gate := frontdoortest.NewGate()
				h := tt.wrap(gate)
				var held []<-chan *httptest.ResponseRecorder
				for range tt.hold {
					held = append(held, frontdoortest.Start(h, get()))
				}
				if err := gate.WaitInside(context.Background(), tt.hold); err != nil {
					t.Fatal(err)
				}

				last := frontdoortest.Start(h, tt.req())
				synctest.Wait() // the last request is answered or held inside
				gate.Open()
				if rec := <-last; rec.Code != tt.wantCode {
					t.Errorf("status = %d, want %d", rec.Code, tt.wantCode)
				} else if rec.Code == http.StatusServiceUnavailable && rec.Header().Get("Retry-After") == "" {
					t.Error("503 without Retry-After")
				}
				for _, c := range held {
					if rec := <-c; rec.Code != http.StatusOK {
						t.Errorf("held request: status = %d, want 200", rec.Code)
					}
				}
			})
		})
	}
}

// TestQueued checks that a request finding every slot busy waits in the
// queue and runs when the slot frees.
func TestQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := frontdoortest.NewGate()
		l := concurrency.New(concurrency.Options{Limit: 1})
		h := l.Handler(gate)
		first := frontdoortest.Start(h, httptest.NewRequest("GET", "/", nil))
		if err := gate.WaitInside(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		second := frontdoortest.Start(h, httptest.NewRequest("GET", "/", nil))
		synctest.Wait()
		if got := l.Stats().Queued; got != 1 {
			t.Fatalf("Stats().Queued = %d, want 1", got)
		}
		gate.Open()
		for _, c := range []<-chan *httptest.ResponseRecorder{first, second} {
			if rec := <-c; rec.Code != http.StatusOK {
				t.Errorf("status = %d, want 200", rec.Code)
			}
		}
	})
}
