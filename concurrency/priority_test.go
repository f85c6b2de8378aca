package concurrency

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/prioritize"
	"github.com/frontdoor-go/frontdoor/priority"
)

// An arrival is a request named name, whose first letter is its tenant,
// of level l.
type arrival struct {
	name string
	l    priority.Level
}

// serveInOrder holds the only slot with a critical request, lets the
// arrivals come one after the other (each queued or refused before the
// next), then frees the slot. It returns the names in the order next ran
// them, then "|", then the refused ones as name:status:level-header, in
// the order they were answered.
func serveInOrder(t *testing.T, o Options, arrivals []arrival) (string, *Limiter) {
	var out string
	var l *Limiter
	synctest.Test(t, func(t *testing.T) {
		o.Limit = 1
		o.QueueTimeout = time.Hour
		l = New(o)
		var mu sync.Mutex
		var ran, refused []string
		release := make(chan struct{})
		h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			name := r.URL.Path[1:]
			if name == "hold" {
				<-release
				return
			}
			mu.Lock()
			ran = append(ran, name)
			mu.Unlock()
		}))
		serve := func(a arrival) {
			r := httptest.NewRequest("GET", "/"+a.name, nil)
			r.Header.Set(priority.DefaultHeader, a.l.String())
			r.Header.Set("Tenant", a.name[:1])
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != http.StatusOK {
				mu.Lock()
				refused = append(refused, a.name+":"+http.StatusText(rec.Code)[:7]+":"+rec.Result().Header.Get(priority.DefaultHeader))
				mu.Unlock()
			}
		}
		var wg sync.WaitGroup
		wg.Go(func() { serve(arrival{"hold", priority.Critical}) })
		synctest.Wait()
		for _, a := range arrivals {
			wg.Go(func() { serve(a) })
			synctest.Wait()
		}
		close(release)
		wg.Wait()
		out = strings.Join(ran, " ") + " | " + strings.Join(refused, " ")
		checkIdle(t, l)
	})
	return out, l
}

const (
	shd  = priority.Sheddable
	shdP = priority.SheddablePlus
	crit = priority.Critical
	crP  = priority.CriticalPlus
)

// distinctTenants names the one-letter tenants of letters with names
// whose keys fall in different groups of the queue. Keys are hashed with a
// seed random per process, and tenants that share a group share its turns:
// the letters themselves would collide in some runs.
func distinctTenants(letters string) map[string]string {
	names := map[string]string{}
	used := map[uint64]bool{}
	for i, j := 0, 0; i < len(letters); j++ {
		name := "tenant-" + strconv.Itoa(j)
		if b := prioritize.Key(name) % prioritize.Buckets; !used[b] {
			used[b] = true
			names[letters[i:i+1]] = name
			i++
		}
	}
	return names
}

func TestPriorityOrder(t *testing.T) {
	byLevel := priority.Header("")
	names := distinctTenants("abc")
	tenant := func(r *http.Request) string { return names[r.Header.Get("Tenant")] }
	for _, tt := range []struct {
		name     string
		o        Options
		arrivals []arrival
		want     string
	}{
		{"without priorities: one line",
			Options{MaxQueue: 8},
			[]arrival{{"s1", shd}, {"c1", crit}, {"s2", shd}, {"p1", crP}},
			"s1 c1 s2 p1 | "},
		{"higher level served first",
			Options{MaxQueue: 8, Priority: byLevel},
			[]arrival{{"s1", shd}, {"c1", crit}, {"s2", shd}, {"p1", crP}, {"q1", shdP}},
			"p1 c1 q1 s1 s2 | "},
		{"LIFO within a level",
			Options{MaxQueue: 8, Priority: byLevel, Order: LIFO},
			[]arrival{{"s1", shd}, {"c1", crit}, {"s2", shd}, {"c2", crit}},
			"c2 c1 s2 s1 | "},
		{"full queue: the newcomer pushes out the lowest, oldest",
			Options{MaxQueue: 3, Priority: byLevel},
			[]arrival{{"q1", shdP}, {"s1", shd}, {"s2", shd}, {"c1", crit}, {"c2", crit}},
			"c1 c2 q1 | s1:Service:sheddable s2:Service:sheddable"},
		{"full queue: a lower newcomer is refused",
			Options{MaxQueue: 2, Priority: byLevel},
			[]arrival{{"c1", crit}, {"q1", shdP}, {"s1", shd}},
			"c1 q1 | s1:Service:sheddable"},
		{"full queue without priorities: the newcomer is refused",
			Options{MaxQueue: 2},
			[]arrival{{"s1", shd}, {"s2", shd}, {"c1", crit}},
			"s1 s2 | c1:Service:"},
		{"tenants take turns within a level",
			Options{MaxQueue: 8, Priority: byLevel, Tenant: tenant},
			[]arrival{{"a1", shd}, {"a2", shd}, {"a3", shd}, {"b1", shd}, {"c1", shd}, {"b2", shd}},
			"a1 b1 c1 a2 b2 a3 | "},
		{"full queue: the noisiest tenant loses",
			Options{MaxQueue: 4, Priority: byLevel, Tenant: tenant},
			[]arrival{{"b1", shd}, {"a1", shd}, {"a2", shd}, {"a3", shd}, {"c1", crit}},
			"c1 b1 a2 a3 | a1:Service:sheddable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := serveInOrder(t, tt.o, tt.arrivals); got != tt.want {
				t.Errorf("served | refused = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPriorityStats(t *testing.T) {
	_, l := serveInOrder(t, Options{MaxQueue: 3, Priority: priority.Header("")},
		[]arrival{{"q1", shdP}, {"s1", shd}, {"s2", shd}, {"c1", crit}, {"c2", crit}})
	var want [priority.NumLevels]LevelStats
	want[shd.Index()] = LevelStats{Admitted: 0, Refused: 2}
	want[shdP.Index()] = LevelStats{Admitted: 1}
	want[crit.Index()] = LevelStats{Admitted: 3} // with the request that held the slot
	if got := l.Stats().Levels; got == nil || *got != want {
		t.Errorf("Stats().Levels = %+v, want %+v", got, want)
	}
	if st := l.Stats(); st.Admitted != 4 || st.QueueFull != 2 {
		t.Errorf("Stats() Admitted %d, QueueFull %d; want 4, 2", st.Admitted, st.QueueFull)
	}
}

// TestPriorityReject: Reject reads the level refused, on a value of its
// own.
func TestPriorityReject(t *testing.T) {
	reject := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte(h.Get(priority.DefaultHeader)))
		h[priority.DefaultHeader][0] = "scribbled"
	})
	got, _ := serveInOrder(t, Options{MaxQueue: -1, Priority: priority.Header(""), Reject: reject},
		[]arrival{{"s1", shd}, {"s2", shd}})
	if want := " | s1:I'm a t:sheddable s2:I'm a t:sheddable"; got != want {
		t.Errorf("served | refused = %q, want %q", got, want)
	}
}

// TestPriorityAcquire: outside HTTP the level comes from the context.
func TestPriorityAcquire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Limit: 1, MaxQueue: 4, QueueTimeout: time.Hour, Priority: priority.Context})
		hold, err := l.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var order []string
		var wg sync.WaitGroup
		for _, a := range []arrival{{"s1", shd}, {"none", 0}, {"s2", shd}, {"p1", crP}} {
			ctx := context.Background()
			if a.name != "none" {
				ctx = priority.WithLevel(ctx, a.l)
			}
			wg.Go(func() {
				release, err := l.Acquire(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				order = append(order, a.name)
				mu.Unlock()
				release()
			})
			synctest.Wait()
		}
		hold()
		wg.Wait()
		if got := strings.Join(order, " "); got != "p1 none s1 s2" {
			t.Errorf("served %q, want \"p1 none s1 s2\" (no level is critical)", got)
		}
		// A refused caller learns why, as without priorities.
		hold, _ = l.Acquire(context.Background())
		ctx, cancel := context.WithTimeout(priority.WithLevel(context.Background(), shd), time.Millisecond)
		defer cancel()
		var re *RefusedError
		if _, err := l.Acquire(ctx); !errors.As(err, &re) || re.Reason != TimedOut {
			t.Errorf("Acquire past its deadline = %v, want a *RefusedError, TimedOut", err)
		}
		hold()
		if got := l.Stats().Levels[shd.Index()]; got.Admitted != 2 || got.Refused != 1 {
			t.Errorf("Stats().Levels[sheddable] = %+v, want 2 admitted, 1 refused", got)
		}
		checkIdle(t, l)
	})
}

// waiters acquire slots of l, each in a goroutine of its own, and record
// the names of those served, in the order they got a slot.
type waiters struct {
	l      *Limiter
	wg     sync.WaitGroup
	mu     sync.Mutex
	served []string
}

// acquire starts a caller named name of level lv, and returns once it
// holds a slot, waits or was refused (synctest.Wait).
func (w *waiters) acquire(name string, lv priority.Level) {
	w.wg.Go(func() {
		release, err := w.l.Acquire(priority.WithLevel(context.Background(), lv))
		if err != nil {
			return
		}
		w.mu.Lock()
		w.served = append(w.served, name)
		w.mu.Unlock()
		release()
	})
	synctest.Wait()
}

// wait waits for every caller and returns the names served, in order.
func (w *waiters) wait() string {
	w.wg.Wait()
	return strings.Join(w.served, " ")
}

// TestPriorityFirstInLine: a request that the next free slots will serve
// (fewer than Limit of its level or above ahead of it) waits out its
// budget instead of being refused on the estimate; one further back is
// refused on it. A critical request that finds only sheddable ones waiting
// is first in line.
func TestPriorityFirstInLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Limit: 2, MaxQueue: 8, QueueTimeout: 50 * time.Millisecond, Priority: priority.Context})
		// A planned service time above the budget: by the estimate, even
		// one round of waiting is too long.
		l.observe(40 * time.Millisecond)
		hold1, _ := l.Acquire(context.Background())
		hold2, _ := l.Acquire(context.Background())
		w := &waiters{l: l}
		w.acquire("s1", shd) // nobody waiting
		w.acquire("s2", shd) // one ahead, fewer than Limit
		w.acquire("s3", shd) // two ahead: refused on the estimate
		w.acquire("c1", crit)
		w.acquire("c2", crit)
		w.acquire("c3", crit) // two critical ahead: refused on the estimate
		time.Sleep(10 * time.Millisecond)
		hold1() // the waiters pass through this slot one by one, in order
		synctest.Wait()
		hold2()
		if got := w.wait(); got != "c1 c2 s1 s2" {
			t.Errorf("served %q, want \"c1 c2 s1 s2\"", got)
		}
		st := l.Stats()
		if st.OverBudget != 2 || st.Levels[shd.Index()].Refused != 1 || st.Levels[crit.Index()].Refused != 1 {
			t.Errorf("OverBudget = %d, refused %+v; want 2: s3 and c3", st.OverBudget, st.Levels)
		}
	})
}

// TestPriorityMeanWait: a critical request with sheddable ones waiting
// behind it is judged on its mean wait, not on the bound; in a queue of
// its own level alone, on the bound as without priorities.
func TestPriorityMeanWait(t *testing.T) {
	for _, tt := range []struct {
		name       string
		sheddable  bool // a sheddable request waits first
		wantServed string
	}{
		{"sheddable behind", true, "c1 c2 c3 s1"},
		{"critical alone", false, "c1 c2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := New(Options{Limit: 1, MaxQueue: 8, QueueTimeout: 50 * time.Millisecond, Priority: priority.Context})
				// Average 10 ms, deviation 5 ms: the bound plans 20 ms a
				// request, so a third in line (60 ms) is over the budget;
				// its mean wait (30 ms) is not.
				l.observe(10 * time.Millisecond)
				hold, _ := l.Acquire(context.Background())
				w := &waiters{l: l}
				if tt.sheddable {
					w.acquire("s1", shd)
				}
				w.acquire("c1", crit)
				w.acquire("c2", crit)
				w.acquire("c3", crit)
				hold()
				if got := w.wait(); got != tt.wantServed {
					t.Errorf("served %q, want %q", got, tt.wantServed)
				}
			})
		})
	}
}

// TestPriorityWithLimitThatFindsItself: the queue orders by level on a
// limit that finds itself as on a fixed one.
func TestPriorityWithLimitThatFindsItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New(Options{Priority: priority.Context, QueueTimeout: time.Hour})
		var holds []func()
		for {
			release, ok := l.TryAcquire()
			if !ok {
				break
			}
			holds = append(holds, release)
		}
		var mu sync.Mutex
		var served []string
		var wg sync.WaitGroup
		for _, a := range []arrival{{"s1", shd}, {"c1", crit}} {
			wg.Go(func() {
				release, err := l.Acquire(priority.WithLevel(context.Background(), a.l))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				served = append(served, a.name)
				mu.Unlock()
				release()
			})
			synctest.Wait()
		}
		holds[0]()
		synctest.Wait()
		for _, release := range holds[1:] {
			release()
		}
		wg.Wait()
		if got := strings.Join(served, " "); got != "c1 s1" {
			t.Errorf("served %q, want \"c1 s1\"", got)
		}
		if st := l.Stats(); st.Adaptive == nil || st.Levels == nil {
			t.Errorf("Stats() = %+v, want Adaptive and Levels", st)
		}
		checkIdle(t, l)
	})
}
