package concurrency

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// gate is a handler that blocks until released and records who ran.
type gate struct {
	mu      sync.Mutex
	order   []string
	release chan struct{}
}

func newGate() *gate { return &gate{release: make(chan struct{})} }

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.order = append(g.order, r.URL.Path)
	g.mu.Unlock()
	<-g.release
	w.Write([]byte("ok"))
}

func (g *gate) ran() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.order...)
}

// do serves path through h in a goroutine and returns the recorder,
// readable once done is closed.
func do(h http.Handler, path string) (*httptest.ResponseRecorder, chan struct{}) {
	return doCtx(context.Background(), h, path)
}

func doCtx(ctx context.Context, h http.Handler, path string) (*httptest.ResponseRecorder, chan struct{}) {
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	req := httptest.NewRequestWithContext(ctx, "GET", path, nil)
	go func() {
		defer close(done)
		h.ServeHTTP(rec, req)
	}()
	return rec, done
}

func TestQueueOrder(t *testing.T) {
	for _, tc := range []struct {
		order Order
		want  []string
	}{
		{FIFO, []string{"/hold", "/a", "/b", "/c"}},
		{LIFO, []string{"/hold", "/c", "/b", "/a"}},
	} {
		t.Run(map[Order]string{FIFO: "FIFO", LIFO: "LIFO"}[tc.order], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newGate()
				l := New(Options{Limit: 1, Order: tc.order, QueueTimeout: time.Hour})
				h := l.Handler(g)
				var dones []chan struct{}
				for _, p := range []string{"/hold", "/a", "/b", "/c"} {
					_, d := do(h, p)
					dones = append(dones, d)
					synctest.Wait()
				}
				if got := l.Stats().Queued; got != 3 {
					t.Fatalf("Queued = %d, want 3", got)
				}
				for range dones {
					g.release <- struct{}{}
					synctest.Wait()
				}
				for _, d := range dones {
					<-d
				}
				got := g.ran()
				for i := range tc.want {
					if i >= len(got) || got[i] != tc.want[i] {
						t.Fatalf("ran %v, want %v", got, tc.want)
					}
				}
				checkIdle(t, l)
			})
		})
	}
}

// checkIdle asserts the gauges are back to 0.
func checkIdle(t *testing.T, l *Limiter) {
	t.Helper()
	s := l.Stats()
	if s.Running != 0 || s.Queued != 0 {
		t.Errorf("Running, Queued = %d, %d, want 0, 0", s.Running, s.Queued)
	}
}

func TestQueueBound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxQueue int
		order    Order
		queued   int // requests that wait
	}{
		{"no queue", -1, FIFO, 0},
		{"FIFO 2", 2, FIFO, 2},
		{"LIFO 2", 2, LIFO, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newGate()
				l := New(Options{Limit: 1, MaxQueue: tc.maxQueue, Order: tc.order, QueueTimeout: time.Hour})
				h := l.Handler(g)
				_, hold := do(h, "/hold")
				synctest.Wait()
				var recs []*httptest.ResponseRecorder
				var dones []chan struct{}
				for range tc.queued + 1 {
					rec, d := do(h, "/more")
					recs = append(recs, rec)
					dones = append(dones, d)
					synctest.Wait()
				}
				// One request too many: FIFO refuses the newcomer, LIFO the oldest.
				refused := len(recs) - 1
				if tc.order == LIFO && tc.queued > 0 {
					refused = 0
				}
				<-dones[refused]
				if got := recs[refused].Code; got != http.StatusServiceUnavailable {
					t.Errorf("Code = %d, want 503", got)
				}
				s := l.Stats()
				if s.QueueFull != 1 || s.Queued != int64(tc.queued) || s.MaxQueue != tc.queued {
					t.Errorf("QueueFull, Queued, MaxQueue = %d, %d, %d, want 1, %d, %d",
						s.QueueFull, s.Queued, s.MaxQueue, tc.queued, tc.queued)
				}
				close(g.release)
				<-hold
				for _, d := range dones {
					<-d
				}
				if s := l.Stats(); s.Admitted != uint64(tc.queued+1) || s.Refused != 1 {
					t.Errorf("Admitted, Refused = %d, %d, want %d, 1", s.Admitted, s.Refused, tc.queued+1)
				}
				checkIdle(t, l)
			})
		})
	}
}

func TestQueueTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		l := New(Options{Limit: 1, QueueTimeout: 300 * time.Millisecond})
		h := l.Handler(g)
		_, hold := do(h, "/hold")
		synctest.Wait()
		start := time.Now()
		rec, d := do(h, "/late")
		<-d
		if got := time.Since(start); got != 300*time.Millisecond {
			t.Errorf("refused after %v, want 300ms", got)
		}
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("Code = %d, want 503", rec.Code)
		}
		if got := rec.Header().Get("Retry-After"); got != "1" {
			t.Errorf("Retry-After = %q, want \"1\"", got)
		}
		s := l.Stats()
		if s.TimedOut != 1 || s.Refused != 1 || s.QueueWait.Count != 1 {
			t.Errorf("TimedOut, Refused, QueueWait.Count = %d, %d, %d, want 1, 1, 1", s.TimedOut, s.Refused, s.QueueWait.Count)
		}
		close(g.release)
		<-hold
		checkIdle(t, l)
	})
}

// sleeper sleeps d (fake time under synctest), then answers 200.
func sleeper(d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(d)
	})
}

func TestRefuseFast(t *testing.T) {
	// Service time 100ms, 2 slots, budget 250ms: places 1..4 in line expect
	// to wait at most 100 or 200ms and queue; place 5 (300ms) is refused
	// at once.
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Limit: 2, MaxQueue: 100, QueueTimeout: 250 * time.Millisecond})
		h := l.Handler(sleeper(100 * time.Millisecond))
		l.svc.Store(int64(100 * time.Millisecond)) // a steady 100ms handler
		var dones []chan struct{}
		for range 2 + 4 {
			_, d := do(h, "/ok")
			dones = append(dones, d)
			synctest.Wait()
		}
		start := time.Now()
		rec, d := do(h, "/over")
		<-d
		if got := time.Since(start); got != 0 {
			t.Errorf("refused after %v, want at once", got)
		}
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("Code = %d, want 503", rec.Code)
		}
		for _, d := range dones {
			<-d
		}
		s := l.Stats()
		if s.OverBudget != 1 || s.TimedOut != 0 || s.Admitted != 6 {
			t.Errorf("OverBudget, TimedOut, Admitted = %d, %d, %d, want 1, 0, 6", s.OverBudget, s.TimedOut, s.Admitted)
		}
		checkIdle(t, l)
	})
}

func TestContextDeadlineShortensBudget(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ahead      int           // requests already queued
		after      time.Duration // when the request is refused
		overBudget uint64        // else timed out
	}{
		// The first in line waits out its budget, whatever the estimate.
		{"first in line", 0, 50 * time.Millisecond, 0},
		// Behind another, it is refused at once on the estimate.
		{"second in line", 1, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := New(Options{Limit: 1, QueueTimeout: time.Hour})
				h := l.Handler(sleeper(100 * time.Millisecond))
				_, d := do(h, "/warm")
				<-d
				dones := []chan struct{}{}
				for range 1 + tc.ahead {
					_, d := do(h, "/hold")
					dones = append(dones, d)
					synctest.Wait()
				}
				// 150ms left, less 100ms of service: 50ms of budget.
				ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
				defer cancel()
				start := time.Now()
				rec, d := doCtx(ctx, h, "/deadline")
				<-d
				if got := time.Since(start); rec.Code != http.StatusServiceUnavailable || got != tc.after {
					t.Errorf("Code %d after %v, want 503 after %v", rec.Code, got, tc.after)
				}
				if s := l.Stats(); s.OverBudget != tc.overBudget || s.OverBudget+s.TimedOut != 1 {
					t.Errorf("OverBudget, TimedOut = %d, %d, want %d, %d", s.OverBudget, s.TimedOut, tc.overBudget, 1-tc.overBudget)
				}
				for _, d := range dones {
					<-d
				}
				checkIdle(t, l)
			})
		})
	}
}
