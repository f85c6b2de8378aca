// Command first is the server from restify's server.first() discussion,
// in Go: GET /hello answers {"hello":"world"} after 200 ms, behind
// shed.Limit(50), so that at most 50 requests are in flight and the rest
// are refused with 503 at once.
//
//	go run ./examples/first                  # serves on 127.0.0.1:8000
//	wrk -c 200 -d 10s http://127.0.0.1:8000/hello
//
// -variant chi puts chi's Throttle (answering 503 the same way) in front
// instead, -variant atomic a hand-written five-line shedder (the floor any
// shedder can reach), and -variant none no limit at all, to compare them
// under the same load. On SIGINT or SIGTERM the server shuts down gracefully and
// prints the shedder's counters.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/frontdoor-go/frontdoor/shed"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "listen address")
	limit := flag.Int("limit", 50, "most requests in flight")
	delay := flag.Duration("delay", 200*time.Millisecond, "how long /hello takes")
	variant := flag.String("variant", "frontdoor", "limiter in front: frontdoor, chi, atomic or none")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, ln, *variant, *limit, *delay); err != nil {
		log.Fatal(err)
	}
}

// run serves until ctx is done, then shuts down and prints the counters.
func run(ctx context.Context, ln net.Listener, variant string, limit int, delay time.Duration) error {
	mux := http.NewServeMux()
	mux.Handle("GET /hello", hello(delay))

	var s *shed.Shedder
	var h http.Handler
	switch variant {
	case "frontdoor":
		s = shed.New(shed.Options{Limit: int64(limit)})
		h = s.Handler(mux)
	case "chi":
		h = middleware.ThrottleWithOpts(middleware.ThrottleOpts{
			Limit:          limit,
			BacklogTimeout: time.Minute,
			StatusCode:     http.StatusServiceUnavailable,
			RetryAfterFn:   func(bool) time.Duration { return time.Second },
		})(mux)
	case "atomic":
		h = atomicShed(int64(limit), mux)
	case "none":
		h = mux
	default:
		return fmt.Errorf("unknown -variant %q: want frontdoor, chi, atomic or none", variant)
	}

	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	fmt.Printf("serving http://%s/hello (%s, limit %d, delay %v)\n", ln.Addr(), variant, limit, delay)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if s != nil {
		fmt.Printf("%+v\n", s.Stats())
	}
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) {
		err = errors.Join(err, e)
	}
	return err
}

// atomicShed is the least a shedder can do: one atomic add, a bare 503.
// It is here only as the floor to measure shed against.
func atomicShed(limit int64, next http.Handler) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer n.Add(-1)
		if n.Add(1) > limit {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hello answers {"hello":"world"} after delay, or gives up when the client
// does.
func hello(delay time.Duration) http.Handler {
	body := []byte(`{"hello":"world"}` + "\n")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
}
