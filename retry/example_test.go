package retry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/frontdoor-go/frontdoor/retry"
)

func ExampleTransport() {
	// A server that refuses its first request, as frontdoor does under
	// overload, and serves the next.
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "served %s attempt %s", r.URL.Path, r.Header.Get(retry.AttemptHeader))
	}))
	defer srv.Close()

	tr := &retry.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/page", nil)
	resp, err := client.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body))
	st := tr.Stats()
	fmt.Println("requests", st.Requests, "attempts", st.Attempts, "refusals", st.Refusals)
	// Output:
	// 200 served /page attempt 2
	// requests 1 attempts 2 refusals 1
}
