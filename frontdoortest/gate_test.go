package frontdoortest

import (
	"context"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/leaktest"
)

func TestGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate()
		a := Start(g, httptest.NewRequest("GET", "/", nil))
		ctx, cancel := context.WithCancel(context.Background())
		b := Start(g, httptest.NewRequest("GET", "/", nil).WithContext(ctx))
		if err := g.WaitInside(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
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

// WaitInside returns the context's error when the count is never reached,
// instead of blocking for ever, and nil as soon as it is.
func TestWaitInsideEndsWithItsContext(t *testing.T) {
	g := NewGate()
	defer g.Open()
	held := Start(g, httptest.NewRequest("GET", "/", nil))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := g.WaitInside(ctx, 1); err != nil {
		t.Fatalf("WaitInside(1) with one inside = %v, want nil", err)
	}
	short, cancelShort := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancelShort()
	if err := g.WaitInside(short, 2); err != context.DeadlineExceeded {
		t.Errorf("WaitInside(2) with one inside = %v, want %v", err, context.DeadlineExceeded)
	}
	g.Open()
	<-held
}
