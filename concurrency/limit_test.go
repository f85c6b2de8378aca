package concurrency

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
)

func TestLimitNeverExceeded(t *testing.T) {
	for _, order := range []Order{FIFO, LIFO} {
		for _, limit := range []int{1, 3} {
			t.Run(strconv.Itoa(int(order))+"/"+strconv.Itoa(limit), func(t *testing.T) {
				var c inflight.Counter
				l := New(Options{Limit: limit, MaxQueue: 4, Order: order, QueueTimeout: time.Second, Counter: &c})
				var cur, peak atomic.Int64
				h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					n := cur.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					runtime.Gosched()
					cur.Add(-1)
				}))
				var wg sync.WaitGroup
				var ok, refused atomic.Int64
				for range 32 {
					wg.Go(func() {
						for range 200 {
							rec := httptest.NewRecorder()
							h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
							if rec.Code == http.StatusOK {
								ok.Add(1)
							} else {
								refused.Add(1)
							}
						}
					})
				}
				wg.Wait()
				if got := peak.Load(); got > int64(limit) {
					t.Errorf("peak running = %d, want <= %d", got, limit)
				}
				if got := c.Peak(); got > int64(limit) {
					t.Errorf("Counter.Peak() = %d, want <= %d", got, limit)
				}
				s := l.Stats()
				if s.Admitted != uint64(ok.Load()) || s.Refused != uint64(refused.Load()) {
					t.Errorf("Admitted, Refused = %d, %d, want %d, %d", s.Admitted, s.Refused, ok.Load(), refused.Load())
				}
				if c.Load() != 0 {
					t.Errorf("Counter.Load() = %d, want 0", c.Load())
				}
				checkIdle(t, l)
			})
		}
	}
}

func TestRefusalResponse(t *testing.T) {
	for _, tc := range []struct {
		name      string
		svc       time.Duration
		queued    int
		wantRetry string
	}{
		{"fast handler", 10 * time.Millisecond, 0, "1"},
		{"rounded up", 1500 * time.Millisecond, 0, "2"},
		{"queue drains in 3×1.5s", 1500 * time.Millisecond, 2, "5"},
		{"capped", time.Hour, 0, "60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := New(Options{Limit: 1, MaxQueue: tc.queued, QueueTimeout: 100 * time.Hour})
				g := newGate()
				h := l.Handler(g)
				l.svc.Store(int64(tc.svc))
				var dones []chan struct{}
				for range tc.queued + 1 {
					_, d := do(h, "/")
					dones = append(dones, d)
					synctest.Wait()
				}
				rec, d := do(h, "/refused")
				<-d
				if rec.Code != http.StatusServiceUnavailable {
					t.Errorf("Code = %d, want 503", rec.Code)
				}
				for k, want := range map[string]string{
					"Retry-After":    tc.wantRetry,
					"Content-Type":   "text/plain; charset=utf-8",
					"Content-Length": strconv.Itoa(len(refusalBody)),
				} {
					if got := rec.Header().Get(k); got != want {
						t.Errorf("%s = %q, want %q", k, got, want)
					}
				}
				if got := rec.Body.String(); got != string(refusalBody) {
					t.Errorf("body = %q, want %q", got, refusalBody)
				}
				close(g.release)
				for _, d := range dones {
					<-d
				}
			})
		})
	}
}

// Reject finds Retry-After set, and no Connection header: a Limiter
// never closes the connection of a refused request.
func TestReject(t *testing.T) {
	var sawRetry string
	var sawConnection []string
	l := New(Options{Limit: 1, MaxQueue: -1, Reject: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawRetry = w.Header().Get("Retry-After")
		sawConnection = w.Header()["Connection"]
		http.Error(w, "try the client-side render", http.StatusServiceUnavailable)
	})})
	g := newGate()
	h := l.Handler(g)
	_, hold := do(h, "/")
	for l.Stats().Running == 0 {
		runtime.Gosched()
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if got := rec.Body.String(); got != "try the client-side render\n" || sawRetry != "1" {
		t.Errorf("body, Retry-After = %q, %q, want the Reject handler's, \"1\"", got, sawRetry)
	}
	if sawConnection != nil {
		t.Errorf("Reject found Connection: %q, want none", sawConnection)
	}
	close(g.release)
	<-hold
}

func TestCoDel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Limit: 1, MaxQueue: 100, QueueTimeout: time.Second,
			CoDelTarget: 10 * time.Millisecond, CoDelInterval: 100 * time.Millisecond})
		g := newGate()
		h := l.Handler(g)
		_, hold := do(h, "/hold")
		synctest.Wait()
		_, first := do(h, "/first") // queue no longer empty
		synctest.Wait()
		time.Sleep(200 * time.Millisecond) // a standing queue for longer than the interval
		start := time.Now()
		rec, d := do(h, "/late")
		<-d
		if got := time.Since(start); got != 10*time.Millisecond || rec.Code != http.StatusServiceUnavailable {
			t.Errorf("refused after %v with %d, want 10ms, 503", got, rec.Code)
		}
		close(g.release)
		<-hold
		<-first
		checkIdle(t, l)
	})
}

// CoDel judges a standing queue by how long the queue has been non-empty
// without a break: a burst after an idle period starts with the whole
// budget, however long the idle period was.
func TestCoDelBurstAfterIdleKeepsBudget(t *testing.T) {
	for _, tc := range []struct {
		name  string
		burst bool // a burst, drained, before the idle period
	}{
		{"idle since New", false},
		{"idle after a burst", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := New(Options{Limit: 1, MaxQueue: 100, QueueTimeout: time.Second,
					CoDelTarget: 10 * time.Millisecond, CoDelInterval: 100 * time.Millisecond})
				g := newGate()
				h := l.Handler(g)
				if tc.burst {
					_, hold := do(h, "/hold")
					synctest.Wait()
					_, first := do(h, "/first")
					synctest.Wait()
					g.release <- struct{}{}
					g.release <- struct{}{}
					<-hold
					<-first
				}
				time.Sleep(time.Second) // idle for ten intervals
				_, hold := do(h, "/hold")
				synctest.Wait()
				_, first := do(h, "/first") // the queue becomes non-empty now
				synctest.Wait()
				second, d := do(h, "/second") // on a queue 0ms old: full budget
				synctest.Wait()
				time.Sleep(50 * time.Millisecond) // past CoDelTarget, within QueueTimeout
				close(g.release)
				<-hold
				<-first
				<-d
				if second.Code != http.StatusOK {
					t.Errorf("second waiter: Code = %d, want 200", second.Code)
				}
				if s := l.Stats(); s.Refused != 0 {
					t.Errorf("Refused = %d, want 0", s.Refused)
				}
				checkIdle(t, l)
			})
		})
	}
}

func TestNewPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"limit", Options{Limit: -1}, "concurrency: Limit must be >= 0"},
		{"queue", Options{MaxQueue: -2}, "concurrency: MaxQueue must be >= -1"},
		{"timeout", Options{QueueTimeout: -2}, "concurrency: QueueTimeout must be >= -1"},
		{"order", Options{Order: 9}, "concurrency: unknown Order"},
		{"codel", Options{CoDelTarget: -1}, "concurrency: CoDelTarget and CoDelInterval must be >= 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := recover(); got != tc.want {
					t.Errorf("panic = %v, want %q", got, tc.want)
				}
			}()
			New(tc.o)
		})
	}
}

func TestDefaults(t *testing.T) {
	s := New(Options{}).Stats()
	if s.Adaptive == nil || s.Limit < 1 || s.MaxQueue != DefaultQueueFactor*s.Limit {
		t.Errorf("Limit, MaxQueue, Adaptive = %d, %d, %v, want a limit that finds itself and a queue of %d × it",
			s.Limit, s.MaxQueue, s.Adaptive, DefaultQueueFactor)
	}
	if s := New(Options{Limit: 3}).Stats(); s.Adaptive != nil || s.Limit != 3 || s.MaxQueue != 3*DefaultQueueFactor {
		t.Errorf("Limit 3: Limit, MaxQueue, Adaptive = %d, %d, %v, want 3, %d, nil", s.Limit, s.MaxQueue, s.Adaptive, 3*DefaultQueueFactor)
	}
	if got := New(Options{}).timeout; got != DefaultQueueTimeout {
		t.Errorf("QueueTimeout = %v, want %v", got, DefaultQueueTimeout)
	}
}

func TestEstimate(t *testing.T) {
	l := New(Options{Limit: 2})
	for _, d := range []time.Duration{100, 100, 100, 100} {
		l.observe(d * time.Millisecond)
	}
	if got := l.ServiceTime(); got != 100*time.Millisecond {
		t.Errorf("ServiceTime() = %v, want 100ms", got)
	}
	steady := l.planned()
	l.observe(500 * time.Millisecond) // a jump: the plan grows more than the average
	if got, avg := time.Duration(l.planned()-steady), l.ServiceTime()-100*time.Millisecond; got <= 2*avg {
		t.Errorf("planned grew by %v, want more than twice the average's %v", got, avg)
	}
	for _, tc := range []struct {
		pos    int
		rounds int64
	}{{1, 1}, {2, 1}, {3, 2}, {5, 3}} {
		if got, want := l.estimate(tc.pos), time.Duration(tc.rounds*l.planned()); got != want {
			t.Errorf("estimate(%d) = %v, want %v", tc.pos, got, want)
		}
	}
}

// The service time is measured only while every slot is taken.
func TestServiceTimeMeasuredWhenFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			limit int
			want  time.Duration
		}{{1, 100 * time.Millisecond}, {2, 0}} {
			l := New(Options{Limit: tc.limit})
			_, d := do(l.Handler(sleeper(100*time.Millisecond)), "/")
			<-d
			if got := l.ServiceTime(); got != tc.want {
				t.Errorf("Limit %d: ServiceTime() = %v, want %v", tc.limit, got, tc.want)
			}
		}
	})
}
