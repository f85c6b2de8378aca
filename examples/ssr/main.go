// Command ssr is a Hypernova-style server-side rendering service built
// with frontdoor: POST /render takes a JSON document of component props
// (hundreds of KB are fine) and returns HTML from a CPU-bound render.
//
// The middlewares compose in chi, outermost first:
//
//	ping -> shed -> render
//
// ping answers /ping and /livez before anything else and drains on
// SIGTERM; an HAProxy agent-check port reports drain state and load. See
// deploy/ for nginx and HAProxy in front of several instances.
//
//	go run ./examples/ssr -addr 127.0.0.1:8080 -agent-addr 127.0.0.1:8081
//	curl -d '{"component":"App","props":{"title":"hi"}}' localhost:8080/render
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/ping"
)

func main() {
	var (
		addr       = flag.String("addr", "127.0.0.1:8080", "HTTP listen address")
		agentAddr  = flag.String("agent-addr", "", "HAProxy agent-check listen address (empty: no agent)")
		name       = flag.String("name", "ssr", "instance name, sent as X-Instance")
		limit      = flag.Int64("limit", 4, "requests in flight before shed answers 503")
		work       = flag.Int("work", 200, "extra CPU work per render, in 1 KiB SHA-256 blocks")
		maxBody    = flag.Int64("max-body", 1<<20, "largest request body in bytes")
		drainDelay = flag.Duration("drain-delay", 3*time.Second, "time between drain and Shutdown on SIGTERM (LB check interval x fall)")
	)
	flag.Parse()
	log.SetPrefix(*name + ": ")

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	var inFlight inflight.Counter
	chk := ping.New(ping.Options{ReadyPath: "/ping", LivePath: "/livez", DrainDelay: *drainDelay})
	srv := &http.Server{
		Handler:           newRouter(chk, &inFlight, config{name: *name, limit: *limit, work: *work, maxBody: *maxBody}),
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       60 * time.Second,
	}

	if *agentAddr != "" {
		aln, err := net.Listen("tcp", *agentAddr)
		if err != nil {
			log.Fatal(err)
		}
		agent := ping.NewAgent(ping.AgentOptions{Checker: chk, Counter: &inFlight, Limit: *limit})
		go func() {
			if err := agent.ServeAgent(aln); !errors.Is(err, ping.ErrAgentClosed) {
				log.Print(err)
			}
		}()
		// The agent keeps answering "drain" until Shutdown is done, so
		// HAProxy never sees "up" from a process on its way out.
		defer agent.Close()
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log.Printf("serving on %s", ln.Addr())
	if err := chk.ServeUntil(ctx, srv, func() error { return srv.Serve(ln) }); err != nil {
		log.Print(err)
		return
	}
	log.Print("drained and stopped")
}
