package concurrency

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
)

// TestPriorityWire sends two classes over real connections, each client
// propagating its level with priority.Transport, into one slot with a
// short queue, and checks that the Limiter's counts per level are the
// answers the clients got, that each refusal names its own level, and
// that critical requests are refused less often than sheddable ones.
func TestPriorityWire(t *testing.T) {
	l := New(Options{Limit: 1, MaxQueue: 4, QueueTimeout: 20 * time.Millisecond, Priority: priority.Header("")})
	srv := httptest.NewServer(l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Millisecond)
	})))
	defer srv.Close()
	base := &http.Transport{MaxIdleConnsPerHost: 16}
	defer base.CloseIdleConnections()
	client := &http.Client{Transport: &priority.Transport{Base: base}}

	type count struct{ ok, refused, wrongHeader int }
	var mu sync.Mutex
	got := map[priority.Level]*count{priority.Critical: {}, priority.Sheddable: {}}
	var wg sync.WaitGroup
	for c := range 12 {
		wg.Go(func() {
			for i := range 40 {
				l := priority.Sheddable
				if (c*40+i)%5 == 0 {
					l = priority.Critical
				}
				req, _ := http.NewRequestWithContext(priority.WithLevel(context.Background(), l), "GET", srv.URL, nil)
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				switch resp.StatusCode {
				case http.StatusOK:
					got[l].ok++
				case http.StatusServiceUnavailable:
					got[l].refused++
					if resp.Header.Get(priority.DefaultHeader) != l.String() {
						got[l].wrongHeader++
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	st := l.Stats()
	for lv, c := range got {
		ls := st.Levels[lv.Index()]
		if ls.Admitted != uint64(c.ok) || ls.Refused != uint64(c.refused) {
			t.Errorf("%v: Stats admitted %d refused %d; clients got %d ok, %d refused", lv, ls.Admitted, ls.Refused, c.ok, c.refused)
		}
		if c.wrongHeader != 0 {
			t.Errorf("%v: %d refusals named another level", lv, c.wrongHeader)
		}
	}
	crit, shd := got[priority.Critical], got[priority.Sheddable]
	t.Logf("critical %d ok %d refused; sheddable %d ok %d refused", crit.ok, crit.refused, shd.ok, shd.refused)
	if shd.refused == 0 {
		t.Fatal("nothing refused: the test did not overload the limiter")
	}
	if crit.refused*(shd.ok+shd.refused) >= shd.refused*(crit.ok+crit.refused) {
		t.Errorf("critical refused %d of %d, not less often than sheddable (%d of %d)",
			crit.refused, crit.ok+crit.refused, shd.refused, shd.ok+shd.refused)
	}
	checkIdle(t, l)
}
