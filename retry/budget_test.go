package retry

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestWindow(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	w := newWindow(30*time.Second, time.Second, t0)
	w.add(t0.Add(500*time.Millisecond), 1, 2)
	w.add(t0.Add(10*time.Second), 10, 0)
	for _, tt := range []struct {
		at     time.Duration
		n0, n1 uint64
	}{
		{0, 1, 2},
		{9 * time.Second, 1, 2},
		{29*time.Second + 999*time.Millisecond, 11, 2},
		{30 * time.Second, 10, 0}, // the first bucket has left
		{39*time.Second + 999*time.Millisecond, 10, 0},
		{40 * time.Second, 0, 0},
		{time.Hour, 0, 0},
	} {
		if n0, n1 := w.sum(t0.Add(tt.at)); n0 != tt.n0 || n1 != tt.n1 {
			t.Errorf("sum(t0+%v) = %d, %d; want %d, %d", tt.at, n0, n1, tt.n0, tt.n1)
		}
	}
	// A bucket reused a window later starts from zero.
	w.add(t0.Add(30*time.Second+time.Millisecond), 5, 5)
	if n0, n1 := w.sum(t0.Add(31 * time.Second)); n0 != 15 || n1 != 5 {
		t.Errorf("after reuse: sum = %d, %d; want 15, 5", n0, n1)
	}
	// A time before the epoch counts as the epoch.
	w2 := newWindow(10*time.Second, time.Second, t0)
	w2.add(t0.Add(-time.Hour), 1, 0)
	if n0, _ := w2.sum(t0); n0 != 1 {
		t.Errorf("event before the epoch: sum = %d, want 1", n0)
	}
}

// TestBudgetArithmetic: over any 10 s, retries are at most the ratio of
// requests plus the reserve, and both leave the budget after 10 s.
func TestBudgetArithmetic(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	b := newBudget(0.2, 10, t0)
	if got := b.available(t0); got != 100 {
		t.Errorf("available at start = %v, want the reserve, 100", got)
	}
	for range 100 {
		b.deposit(t0)
	}
	n := 0
	for n < 1000 && b.withdraw(t0.Add(time.Second)) {
		n++
	}
	if n != 120 {
		t.Errorf("retries allowed after 100 requests = %d, want 0.2×100 + 10×10 = 120", n)
	}
	if got := b.available(t0.Add(9 * time.Second)); got != 0 {
		t.Errorf("available 9 s later = %v, want 0", got)
	}
	if got := b.available(t0.Add(11 * time.Second)); got != 100 {
		t.Errorf("available 11 s later = %v, want 100", got)
	}
	none := newBudget(0, 0, t0)
	if none.withdraw(t0) {
		t.Error("a budget of no ratio and no reserve allowed a retry")
	}
}

// TestBudgetConcurrent: retries withdrawn at once by many goroutines never
// pass the budget.
func TestBudgetConcurrent(t *testing.T) {
	t0 := time.Now()
	b := newBudget(0.2, 1, t0)
	var got atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				b.deposit(t0)
				if b.withdraw(t0) {
					got.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := got.Load(); n > 0.2*8000+10 {
		t.Errorf("%d retries allowed for 8000 requests, want at most %d", n, 1600+10)
	}
}

// TestBudgetBindsTransport: against a server that refuses everything,
// retries stop at the budget, counted as OverBudget, and the budget comes
// back once the window has passed.
func TestBudgetBindsTransport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := &fakeBase{script: []outcome{{status: 503, retryAfter: "0"}}}
		tr := &Transport{Base: base, Backoff: time.Microsecond, ThrottleK: -1}
		for range 1000 {
			req, _ := http.NewRequest("GET", "http://example.com/", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		st := tr.Stats()
		if st.Retries < 299 || st.Retries > 300 {
			t.Errorf("Stats.Retries = %d for 1000 requests, want 0.2×1000 + 100 = 300", st.Retries)
		}
		// Each request refused a retry stops there: of 1000 requests, at
		// most 150 had both their retries.
		if st.OverBudget < 850 || st.OverBudget > 1000 || st.Attempts != st.Requests+st.Retries {
			t.Errorf("Stats = %+v, want 850 to 1000 OverBudget and Attempts = Requests + Retries", st)
		}
		if st.Budget >= 1 {
			t.Errorf("Stats.Budget = %v, want spent", st.Budget)
		}
		time.Sleep(budgetSpan)
		if got := tr.Stats().Budget; got != 100 {
			t.Errorf("Stats.Budget after %v = %v, want 100", budgetSpan, got)
		}
	})
}
