package shed_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/leaktest"

	"github.com/frontdoor-go/frontdoor/shed"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// newServer starts h on a loopback httptest server whose panics are not logged.
func newServer(t *testing.T, h http.Handler) (*httptest.Server, *http.Client) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return srv, &http.Client{Transport: tr}
}

// waitZero waits, at most 5 s, for the Shedder's count to reach 0: a
// handler returns a moment after its client gave up.
func waitZero(t *testing.T, s *shed.Shedder) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); s.Counter().Load() != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("in flight = %d, want 0", s.Counter().Load())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestStress sends 4000 requests from 200 clients through a limit of 50
// over real connections.
func TestStress(t *testing.T) {
	const clients, perClient, limit = 200, 20, 50
	s := shed.New(shed.Options{Limit: limit})
	var in witness
	srv, client := newServer(t, s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in.enter()
		defer in.leave()
		time.Sleep(time.Millisecond) // hold the slot so that clients overlap
	})))
	var ok, refused, failed atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range perClient {
				resp, err := client.Get(srv.URL)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case 200:
					ok.Add(1)
				case 503:
					refused.Add(1)
				default:
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := in.max.Load(); got > limit {
		t.Errorf("max inside the handler = %d, want <= %d", got, limit)
	}
	if n := failed.Load(); n != 0 {
		t.Errorf("%d requests failed", n)
	}
	st := s.Stats()
	if st.InFlight != 0 {
		t.Errorf("in flight after = %d, want 0", st.InFlight)
	}
	if sent := uint64(clients * perClient); st.Admitted+st.Refused != sent {
		t.Errorf("admitted %d + refused %d = %d, want %d sent", st.Admitted, st.Refused, st.Admitted+st.Refused, sent)
	}
	if st.Admitted != uint64(ok.Load()) || st.Refused != uint64(refused.Load()) {
		t.Errorf("Stats() = %+v, clients saw %d ok and %d refused", st, ok.Load(), refused.Load())
	}
	if st.Peak > limit {
		t.Errorf("Peak = %d, want <= %d", st.Peak, limit)
	}
}

// TestClientHangsUp checks the count after clients that give up while the
// handler runs, and after handlers that panic on a real connection.
func TestClientHangsUp(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		cancel  bool
	}{
		{"client cancels", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, true},
		{"handler panics", func(w http.ResponseWriter, r *http.Request) { panic("boom") }, false},
		{"handler aborts", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }, false},
		{"aborts after writing", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const n = 20
			s := shed.New(shed.Options{Limit: n})
			srv, client := newServer(t, s.Handler(tt.handler))
			// The clients hang up together, once all n are inside the handler.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				go func() {
					for deadline := time.Now().Add(5 * time.Second); s.Counter().Load() < n && time.Now().Before(deadline); {
						time.Sleep(time.Millisecond)
					}
					cancel()
				}()
			}
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
					resp, err := client.Do(req)
					if err == nil {
						_, err = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
					if err == nil {
						t.Error("request succeeded, want an error")
					}
					if tt.cancel && !errors.Is(err, context.Canceled) {
						t.Errorf("error = %v, want context.Canceled", err)
					}
				})
			}
			wg.Wait()
			waitZero(t, s)
			if st := s.Stats(); st.Admitted != n || st.Refused != 0 {
				t.Errorf("Stats() = %+v, want %d admitted, 0 shed", st, n)
			}
		})
	}
}

// TestSetLimitUnderLoad changes the limit while requests run; the number
// inside never passes the highest limit set, and the count ends at 0.
func TestSetLimitUnderLoad(t *testing.T) {
	const clients, perClient, high = 64, 30, 16
	s := shed.New(shed.Options{Limit: high})
	var in witness
	srv, client := newServer(t, s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in.enter()
		defer in.leave()
		time.Sleep(100 * time.Microsecond)
	})))
	stop := make(chan struct{})
	var toggler sync.WaitGroup
	toggler.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
				s.SetLimit(1 + i%high)
				time.Sleep(50 * time.Microsecond)
			}
		}
	})
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range perClient {
				resp, err := client.Get(srv.URL)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	close(stop)
	toggler.Wait()
	if got := in.max.Load(); got > high {
		t.Errorf("max inside = %d, want <= %d", got, high)
	}
	st := s.Stats()
	if st.InFlight != 0 || st.Admitted+st.Refused != clients*perClient {
		t.Errorf("Stats() = %+v, want InFlight 0 and %d requests", st, clients*perClient)
	}
}
