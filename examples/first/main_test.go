package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun starts the example on an ephemeral port, sends more requests at
// once than its limit, and checks that the extra ones are refused.
func TestRun(t *testing.T) {
	tests := []struct {
		variant     string
		wantRefused int
	}{
		{"frontdoor", 3},
		{"chi", 3},
		{"atomic", 3},
		{"none", 0},
	}
	for _, tt := range tests {
		t.Run(tt.variant, func(t *testing.T) {
			const limit, clients = 2, 5
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- run(ctx, ln, tt.variant, limit, time.Second) }()

			url := "http://" + ln.Addr().String() + "/hello"
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			codes := make(chan int, clients)
			var wg sync.WaitGroup
			for range clients {
				wg.Go(func() {
					resp, err := (&http.Client{Transport: tr}).Get(url)
					if err != nil {
						t.Error(err)
						return
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode == 200 && string(b) != "{\"hello\":\"world\"}\n" {
						t.Errorf("body = %q", b)
					}
					codes <- resp.StatusCode
				})
			}
			wg.Wait()
			close(codes)
			refused := 0
			for c := range codes {
				if c == http.StatusServiceUnavailable {
					refused++
				}
			}
			if refused != tt.wantRefused {
				t.Errorf("refused = %d, want %d", refused, tt.wantRefused)
			}
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run() = %v", err)
			}
		})
	}
}

func TestRunUnknownVariant(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := run(context.Background(), ln, "bogus", 1, 0); err == nil {
		t.Error("run with -variant bogus = nil, want an error")
	}
}
