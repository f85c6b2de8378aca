// Command first is the server from restify's server.first() discussion, in
// Go: GET /hello answers {"hello":"world"} after 200 ms, behind
// shed.Limit(50), so that at most 50 requests are in flight and the rest
// are refused with 503 at once, before any other work.
//
//	go run ./examples/first    # serves on 127.0.0.1:8000
//	curl -i http://127.0.0.1:8000/hello
//
// On SIGINT or SIGTERM it shuts down gracefully. The overload demo
// (go run ./examples/overload) measures this scenario side by side with
// peers.
package main

import (
	"context"
	"log"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/frontdoor-go/frontdoor/shed"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Addr: "127.0.0.1:8000", Handler: newHandler(200 * time.Millisecond)}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	log.Printf("serving http://%s/hello", srv.Addr)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		log.Fatal(err)
	}
}

// newHandler returns the seed server: /hello behind a limit of 50 requests
// in flight.
func newHandler(delay time.Duration) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return // the client left: write nothing
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"hello":"world"}` + "\n"))
	})
	return shed.Limit(50)(mux)
}
