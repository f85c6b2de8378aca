package shed_test

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/prioritize"
	"github.com/frontdoor-go/frontdoor/shed"
)

// One tenant sends ten times as much as each of the others, together
// more than the limit serves: each quiet tenant asks for less than its
// fair share and is served at least 90% of its requests once the Shedder
// has seen who sends what, while the noisy one, over its share, loses the
// rest.
func TestQuietTenantsServedBesideANoisyOne(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int
		quiet string        // the quiet tenants
		gap   time.Duration // the mean gap between two requests of a quiet tenant
	}{
		// 10 ms a request: 100 a second per place.
		{"20 places, 3 quiet, 2x", 20, "abc", 3250 * time.Microsecond},      // quiet 308/s each, noisy 3077/s
		{"50 places, 6 quiet, 1.5x", 50, "abcdef", 2130 * time.Microsecond}, // 469/s, 4690/s
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				names := distinctTenants("n" + tc.quiet)
				s := shed.New(shed.Options{Limit: tc.limit, Tenant: func(r *http.Request) string {
					return names[r.Header.Get("Tenant")]
				}})
				h := s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					time.Sleep(10 * time.Millisecond)
				}))
				senders := []sender{{"n", tc.gap / 10}}
				for _, q := range tc.quiet {
					senders = append(senders, sender{string(q), tc.gap})
				}
				served := tenantLoad(h, senders, 500*time.Millisecond, 2*time.Second)
				t.Logf("served: %v", served)
				for _, q := range tc.quiet {
					if got := served[string(q)]; got < 0.9 {
						t.Errorf("quiet tenant %c served %.3f, want >= 0.9 (noisy %.3f)", q, got, served["n"])
					}
				}
				// What the limit leaves to the noisy tenant, per request it
				// sends, in units of a quiet tenant's demand.
				capacity := float64(tc.limit) * 100 * tc.gap.Seconds()
				if got, most := served["n"], (capacity-float64(len(tc.quiet)))/10; got > most+0.05 {
					t.Errorf("noisy tenant served %.3f, want at most %.3f: the limit cannot serve more", got, most)
				}
				if st := s.Stats(); st.InFlight != 0 {
					t.Errorf("InFlight = %d after the load, want 0", st.InFlight)
				}
			})
		})
	}
}

// distinctTenants names the one-letter tenants of letters with names
// whose keys fall in different groups (tenants that share a group share
// its places).
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

// A sender is a tenant that sends requests gap apart on average.
type sender struct {
	tenant string
	gap    time.Duration
}

// tenantLoad sends requests through h for warm + d, each sender's at
// random (Poisson, from a fixed seed) gap apart on average, waits for
// every answer, and returns the share of each tenant's requests sent
// after warm that were answered 200.
func tenantLoad(h http.Handler, senders []sender, warm, d time.Duration) map[string]float64 {
	var mu sync.Mutex
	ok, all := map[string]int{}, map[string]int{}
	var wg sync.WaitGroup
	for i, s := range senders {
		tenant := s.tenant
		rng := rand.New(rand.NewPCG(uint64(i), 19))
		next := func() time.Duration { return time.Duration(rng.ExpFloat64() * float64(s.gap)) }
		wg.Go(func() {
			for start := time.Now(); time.Since(start) < warm+d; time.Sleep(next()) {
				counted := time.Since(start) >= warm
				wg.Go(func() {
					r := httptest.NewRequest("GET", "/", nil)
					r.Header.Set("Tenant", tenant)
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, r)
					if !counted {
						return
					}
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
