package gone

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// notifier is a ResponseWriter whose CloseNotify channel the test fills.
type notifier struct {
	*httptest.ResponseRecorder
	closed chan bool
}

func (n *notifier) CloseNotify() <-chan bool { return n.closed }

// wrapper hides its writer's methods but for Unwrap, as a middleware's
// writer does.
type wrapper struct{ http.ResponseWriter }

func (w wrapper) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestClient(t *testing.T) {
	canceled := func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx
	}
	for _, tc := range []struct {
		name    string
		ctx     func() context.Context
		w       func(closed chan bool) http.ResponseWriter
		closeAt time.Duration // when the writer reports the close; < 0: never
		want    bool
		after   time.Duration // when Client returns
	}{
		{"context not done", context.Background, withNotifier, 0, false, 0},
		{"deadline passed", func() context.Context {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now())
			cancel()
			return ctx
		}, withNotifier, 0, false, 0},
		{"canceled with a cause", func() context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errors.New("shutting down"))
			return ctx
		}, withNotifier, 0, false, 0},
		{"canceled, writer reports no close", canceled, func(chan bool) http.ResponseWriter {
			return httptest.NewRecorder()
		}, 0, false, 0},
		{"canceled, connection closed", canceled, withNotifier, 0, true, 0},
		{"canceled, close reported just after", canceled, withNotifier, time.Millisecond, true, time.Millisecond},
		{"canceled, connection open", canceled, withNotifier, -1, false, Grace},
		{"canceled, close reported too late", canceled, withNotifier, 2 * Grace, false, Grace},
		{"canceled, closed behind a wrapper", canceled, func(c chan bool) http.ResponseWriter {
			return wrapper{wrapper{withNotifier(c)}}
		}, 0, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				closed := make(chan bool, 1)
				switch {
				case tc.closeAt == 0:
					closed <- true
				case tc.closeAt > 0:
					time.AfterFunc(tc.closeAt, func() { closed <- true })
				}
				start := time.Now()
				if got := Client(tc.ctx(), tc.w(closed)); got != tc.want {
					t.Errorf("Client() = %v, want %v", got, tc.want)
				}
				if got := time.Since(start); got != tc.after {
					t.Errorf("Client() returned after %v, want %v", got, tc.after)
				}
				synctest.Wait()
			})
		})
	}
}

func withNotifier(closed chan bool) http.ResponseWriter {
	return &notifier{httptest.NewRecorder(), closed}
}
