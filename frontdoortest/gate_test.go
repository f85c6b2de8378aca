package frontdoortest

import (
	"context"
	"net/http/httptest"
	"testing"
	"testing/synctest"

	"github.com/frontdoor-go/frontdoor/internal/leaktest"
)

func TestGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate()
		a := Start(g, httptest.NewRequest("GET", "/", nil))
		ctx, cancel := context.WithCancel(context.Background())
		b := Start(g, httptest.NewRequest("GET", "/", nil).WithContext(ctx))
		g.WaitInside(2)
		if got := g.Inside(); got != 2 {
			t.Fatalf("Inside() = %d, want 2", got)
		}

		cancel()
		if rec := <-b; rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != "" {
			t.Errorf("canceled request got %q, want nothing written", rec.Body)
		}
		synctest.Wait()
		if got := g.Inside(); got != 1 {
			t.Errorf("Inside() after cancel = %d, want 1", got)
		}

		g.Open()
		g.Open() // a second call does nothing
		if rec := <-a; rec.Code != 200 || rec.Body.String() != "ok" {
			t.Errorf("held request: %d %q, want 200 \"ok\"", rec.Code, rec.Body)
		}
		if rec := <-Start(g, httptest.NewRequest("GET", "/", nil)); rec.Code != 200 {
			t.Errorf("request after Open: %d, want 200", rec.Code)
		}
		if got := g.Inside(); got != 0 {
			t.Errorf("Inside() at the end = %d, want 0", got)
		}
	})
}

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }
