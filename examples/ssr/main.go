// Command ssr is a Hypernova-style server-side rendering service built
// with frontdoor: POST /render takes a JSON document of component props
// (hundreds of KB are fine) and returns HTML from a CPU-bound render.
//
// The middlewares compose in chi, outermost first:
//
//	ping -> shed -> bodybuffer -> concurrency -> Instrument -> render
//
// ping answers /ping and /livez before anything else and drains on
// SIGTERM; shed refuses when -limit requests are in flight; bodybuffer
// reads the whole body (at most -max-body) before a render slot is taken;
// concurrency runs -renders renders at once and queues -queue more for at
// most -queue-timeout. GOMAXPROCS is raised to at least -renders+1, the
// concurrency package's rule for CPU-bound handlers. An HAProxy
// agent-check port reports drain state and load. GET /metrics serves
// every counter in the Prometheus text format; it is never shed or
// queued. See deploy/ for nginx and HAProxy in front of several instances.
//
//	go run ./examples/ssr -addr 127.0.0.1:8080 -agent-addr 127.0.0.1:8081
//	curl -d '{"component":"App","props":{"title":"hi"}}' localhost:8080/render
//	curl localhost:8080/metrics
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
	"runtime"
	"syscall"
	"time"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/ping"
)

func main() {
	var (
		addr       = flag.String("addr", "127.0.0.1:8080", "HTTP listen address")
		agentAddr  = flag.String("agent-addr", "", "HAProxy agent-check listen address (empty: no agent)")
		name       = flag.String("name", "ssr", "instance name, sent as X-Instance")
		limit      = flag.Int64("limit", 0, "requests in flight (uploading, queued, rendering) before shed answers 503 (0: 2 x (renders + queue))")
		renders    = flag.Int("renders", 0, "renders at once (0: cores + 1); GOMAXPROCS is raised to at least renders + 1")
		queue      = flag.Int("queue", 0, "renders that may wait for a slot (0: 8 x renders, -1: none)")
		queueWait  = flag.Duration("queue-timeout", concurrency.DefaultQueueTimeout, "longest wait for a render slot")
		work       = flag.Int("work", 200, "extra CPU work per render, in 1 KiB SHA-256 blocks")
		maxBody    = flag.Int64("max-body", bodybuffer.DefaultMaxBytes, "largest request body in bytes (413 above)")
		drainDelay = flag.Duration("drain-delay", 3*time.Second, "time between drain and Shutdown on SIGTERM (LB check interval x fall)")
	)
	flag.Parse()
	log.SetPrefix(*name + ": ")

	sz, err := size(runtime.GOMAXPROCS(0), *renders, *queue, *limit)
	if err != nil {
		log.Fatal(err)
	}
	if sz.procs != runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(sz.procs)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	var inFlight inflight.Counter
	chk := ping.New(ping.Options{ReadyPath: "/ping", LivePath: "/livez", DrainDelay: *drainDelay})
	cfg := config{sizing: sz, queueTimeout: *queueWait, maxBody: *maxBody}
	app := newServer(chk, &inFlight, cfg, renderHandler(*name, *work))
	srv := &http.Server{
		Handler:           app,
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       60 * time.Second,
	}

	if *agentAddr != "" {
		aln, err := net.Listen("tcp", *agentAddr)
		if err != nil {
			log.Fatal(err)
		}
		agent := ping.NewAgent(ping.AgentOptions{Checker: chk, Load: app.load})
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
	log.Printf("serving on %s: %d renders at once, queue %d (%v), shed at %d in flight, GOMAXPROCS %d",
		ln.Addr(), sz.renders, sz.queue, *queueWait, sz.limit, sz.procs)
	if err := chk.ServeUntil(ctx, srv, func() error { return srv.Serve(ln) }); err != nil {
		log.Print(err)
		return
	}
	log.Print("drained and stopped")
}
