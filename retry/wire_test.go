package retry_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
	"github.com/frontdoor-go/frontdoor/retry"
)

// seen is what a test server saw of one request.
type seen struct {
	attempt, level, body string
}

// TestWire: through http.Client and a real connection, a refused POST
// marked idempotent is sent again with the same body, its attempt number
// and its level.
func TestWire(t *testing.T) {
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Header.Get(retry.AttemptHeader), r.Header.Get(priority.DefaultHeader), string(b)})
		n := len(got)
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "rendered")
	}))
	defer srv.Close()
	tr := &retry.Transport{Base: srv.Client().Transport, Backoff: time.Millisecond}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx := priority.WithLevel(context.Background(), priority.SheddablePlus)
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/render", bytes.NewReader([]byte(`{"page":1}`)))
	req.Header.Set("Idempotency-Key", "render-1")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "rendered" {
		t.Errorf("response %d %q, want 200 \"rendered\"", resp.StatusCode, b)
	}
	want := []seen{{"", "sheddable_plus", `{"page":1}`}, {"2", "sheddable_plus", `{"page":1}`}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("server saw %q, want %q", got, want)
	}
}

// TestWireErrors: against real connections, which failures are retried.
// A connection refused (a dial error) is retried for a POST; a connection
// closed after the request was sent is retried for a GET only.
func TestWireErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + ln.Addr().String()
	ln.Close()
	var posts atomic.Int32
	hangUp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			posts.Add(1)
		}
		conn, _, _ := http.NewResponseController(w).Hijack()
		conn.Close() // no answer
	}))
	defer hangUp.Close()
	for _, tt := range []struct {
		name, method, url string
		wantAttempts      uint64
		wantUnsafe        uint64
	}{
		{"POST to a closed port", "POST", closedURL, 3, 0},
		{"GET hung up on", "GET", hangUp.URL, 3, 0},
		{"POST hung up on", "POST", hangUp.URL, 1, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := &http.Transport{}
			defer base.CloseIdleConnections()
			tr := &retry.Transport{Base: base, Backoff: time.Millisecond, ThrottleK: -1}
			req, _ := http.NewRequest(tt.method, tt.url, bytes.NewReader([]byte("x")))
			if _, err := (&http.Client{Transport: tr}).Do(req); err == nil {
				t.Fatal("Do succeeded, want an error")
			}
			if st := tr.Stats(); st.Attempts != tt.wantAttempts || st.Unsafe != tt.wantUnsafe {
				t.Errorf("Stats = %+v, want %d attempts, %d unsafe", st, tt.wantAttempts, tt.wantUnsafe)
			}
		})
	}
	if n := posts.Load(); n != 1 {
		t.Errorf("the server got the POST %d times, want 1", n)
	}
}

// TestWireThrottled: against a server that refuses everything, requests
// are soon refused locally, with an error that errors.As finds through
// http.Client's *url.Error.
func TestWireThrottled(t *testing.T) {
	var hits int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	tr := &retry.Transport{Base: srv.Client().Transport, MaxAttempts: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	throttled := 0
	for range 100 {
		resp, err := client.Get(srv.URL)
		var te *retry.ThrottledError
		switch {
		case errors.As(err, &te):
			throttled++
		case err != nil:
			t.Fatal(err)
		default:
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	st := tr.Stats()
	mu.Lock()
	defer mu.Unlock()
	if throttled == 0 || uint64(throttled) != st.Throttled || uint64(hits) != st.Attempts || st.Attempts+st.Throttled != 100 {
		t.Errorf("%d throttled, server hit %d times, Stats %+v; want some throttled, counted alike", throttled, hits, st)
	}
}
