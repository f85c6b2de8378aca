// Package frontdoor is overload protection for Go net/http servers, as plain
// func(http.Handler) http.Handler middlewares that work with the standard
// library's ServeMux, chi, or any router.
//
// This package holds only documentation; the middlewares live in its
// subpackages, each usable alone:
//
//   - inflight: an atomic count of requests in flight, shared by the others.
//   - shed: synchronous load shedding; count and check in one atomic step
//     and refuse with 503 at once, before any other work.
//   - bodybuffer: read the whole request body before the handler runs,
//     bounded in size and time; never run the handler for a client that
//     gave up.
//   - concurrency: a semaphore with a short, bounded queue for CPU-bound
//     handlers; refuse at once what cannot be served in time.
//   - ping: answer health checks before anything else, drain on shutdown,
//     and report load to HAProxy's agent-check.
//   - metrics: every counter above as Prometheus collectors and expvar.
//   - retry: the caller's side: an http.RoundTripper that retries only
//     what is safe, honors Retry-After within the deadline and a retry
//     budget, and throttles locally when the server refuses most requests.
//
// # Composition
//
// Outermost first, the order is
//
//	ping -> shed -> bodybuffer -> concurrency -> handler
//
// ping first, so a health check is never shed or queued; shed next, the
// cheapest refusal, before the body is read; bodybuffer before concurrency,
// so a slow upload never holds a render slot; concurrency last, so only
// complete requests from clients still waiting take a slot. Refusals are
// 503 Service Unavailable with Retry-After, never 429: the client did
// nothing wrong.
//
//	procs := concurrency.ReserveP() // CPU-bound handlers: a P for the front door
//
//	chk := ping.New(ping.Options{ReadyPath: "/ping", LivePath: "/livez"})
//	shedder := shed.New(shed.Options{Limit: 200}) // what you measured
//	body := bodybuffer.New(bodybuffer.Options{})
//	renders := concurrency.New(concurrency.Options{Limit: procs - 1}) // the sizing rule
//
//	mux := http.NewServeMux()
//	mux.Handle("POST /render", body.Handler(renders.Handler(render)))
//	srv := &http.Server{Addr: ":8080", Handler: chk.Handler(shedder.Handler(mux))}
//	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
//	defer stop()
//	if err := chk.ServeUntil(ctx, srv, srv.ListenAndServe); err != nil {
//		log.Fatal(err)
//	}
//
// The command examples/overload measures all of it under open-loop
// overload, side by side with peers and no protection.
package frontdoor
