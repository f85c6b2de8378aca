package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestLimit sends more requests at once than the limit over real
// connections: 50 are served, the rest refused with 503 and Retry-After.
func TestLimit(t *testing.T) {
	const clients = 60
	srv := httptest.NewServer(newHandler(time.Second))
	defer srv.Close()

	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			resp, err := srv.Client().Get(srv.URL + "/hello")
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusOK:
				if string(b) != "{\"hello\":\"world\"}\n" {
					t.Errorf("body = %q", b)
				}
			case http.StatusServiceUnavailable:
				if resp.Header.Get("Retry-After") == "" {
					t.Error("503 without Retry-After")
				}
			}
			mu.Lock()
			codes[resp.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if codes[http.StatusOK] != 50 || codes[http.StatusServiceUnavailable] != clients-50 {
		t.Errorf("status counts = %v, want 50 × 200 and %d × 503", codes, clients-50)
	}
}
