package concurrency

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
)

// One tenant sends ten times as much as each of three others, together
// more than the slots serve: each quiet tenant asks for less than its
// fair share (a quarter) and is served at least 90% of its requests, in
// both orders, while the noisy one, over its share, loses the rest.
func TestQuietTenantsServedBesideANoisyOne(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int
		quiet time.Duration // the mean gap between two requests of a quiet tenant
	}{
		// 10 ms a request: 100 a second per slot.
		{"1 slot, 1.3x", 1, 100 * time.Millisecond}, // quiet 10/s each, noisy 100/s
		{"2 slots, 1.3x", 2, 50 * time.Millisecond}, // 20/s, 200/s
		{"4 slots, 2x", 4, 16 * time.Millisecond},   // 62.5/s, 625/s
		{"8 slots, 1.6x", 8, 10 * time.Millisecond}, // 100/s, 1000/s
	} {
		for _, order := range []Order{FIFO, LIFO} {
			t.Run(tc.name+"/"+map[Order]string{FIFO: "FIFO", LIFO: "LIFO"}[order], func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					names := distinctTenants("nabc")
					l := New(Options{Limit: tc.limit, Order: order, Tenant: func(r *http.Request) string {
						return names[r.Header.Get("Tenant")]
					}})
					h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						time.Sleep(10 * time.Millisecond)
					}))
					served := tenantLoad(h, []sender{
						{"n", tc.quiet / 10},
						{"a", tc.quiet},
						{"b", tc.quiet},
						{"c", tc.quiet},
					}, 3*time.Second)
					t.Logf("served: %v", served)
					for _, q := range "abc" {
						if got := served[string(q)]; got < 0.9 {
							t.Errorf("quiet tenant %c served %.3f, want >= 0.9 (noisy %.3f)", q, got, served["n"])
						}
					}
					// What the slots leave to the noisy tenant, per request it sends.
					capacity := float64(tc.limit) * 100 * tc.quiet.Seconds()
					if got, most := served["n"], (capacity-3)/10; got > most+0.05 {
						t.Errorf("noisy tenant served %.3f, want at most %.3f: the slots cannot serve more", got, most)
					}
					st := l.Stats()
					if st.Levels[priority.Default.Index()].Refused != st.Refused {
						t.Errorf("level refusals %d, Refused %d", st.Levels[priority.Default.Index()].Refused, st.Refused)
					}
					checkIdle(t, l)
				})
			})
		}
	}
}

// A sender is a tenant that sends requests gap apart on average.
type sender struct {
	tenant string
	gap    time.Duration
}

// tenantLoad sends requests through h for d, each sender's at random
// (Poisson, from a fixed seed) gap apart on average, waits for every
// answer, and returns the share of each tenant's requests answered 200.
func tenantLoad(h http.Handler, senders []sender, d time.Duration) map[string]float64 {
	var mu sync.Mutex
	ok, all := map[string]int{}, map[string]int{}
	var wg sync.WaitGroup
	for i, s := range senders {
		tenant := s.tenant
		rng := rand.New(rand.NewPCG(uint64(i), 19))
		next := func() time.Duration { return time.Duration(rng.ExpFloat64() * float64(s.gap)) }
		wg.Go(func() {
			for start := time.Now(); time.Since(start) < d; time.Sleep(next()) {
				wg.Go(func() {
					r := httptest.NewRequest("GET", "/", nil)
					r.Header.Set("Tenant", tenant)
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, r)
					mu.Lock()
					all[tenant]++
					if rec.Code == http.StatusOK {
						ok[tenant]++
					}
					mu.Unlock()
				})
			}
		})
	}
	wg.Wait()
	served := map[string]float64{}
	for tenant, n := range all {
		served[tenant] = float64(ok[tenant]) / float64(n)
	}
	return served
}
