// Package ping provides health-check endpoints that answer before any other
// middleware, a drain state for graceful shutdown behind a load balancer,
// and an HAProxy agent-check server that reports drain state and load.
//
// Put the Checker's handler first, outside shed and any queue, so a health
// check is never shed, queued or counted as load; run the server with
// ServeUntil so that SIGTERM drains it before it stops:
//
//	s := shed.New(shed.Options{Limit: 50})
//	chk := ping.New(ping.Options{LivePath: "/livez", ReadyPath: "/ping"})
//	srv := &http.Server{Addr: ":8080", Handler: chk.Handler(s.Handler(app))}
//
//	agent := ping.NewAgent(ping.AgentOptions{
//		Checker: chk,
//		Load: func() (int, int) {
//			st := s.Stats()
//			return int(st.InFlight), int(st.Limit)
//		},
//	})
//	go agent.ServeAgent(agentListener)
//	defer agent.Close()
//
//	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
//	defer stop()
//	// On SIGTERM: drain, wait DrainDelay, srv.Shutdown, return.
//	if err := chk.ServeUntil(ctx, srv, srv.ListenAndServe); err != nil {
//		log.Print(err)
//	}
//
// For the common case, ping.Handler("/ping") answers GET and HEAD on /ping
// with 200 and passes everything else on.
//
// Draining tells the load balancer to stop sending before the process
// stops listening: the ready path answers 503, every response carries
// Connection: close so keep-alive clients reconnect elsewhere, and an Agent
// answers "drain" to HAProxy's agent-check. The live path stays 200, as
// Kubernetes expects of a liveness probe on a process that is shutting down
// on purpose.
package ping
