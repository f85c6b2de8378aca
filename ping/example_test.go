package ping_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/frontdoor-go/frontdoor/ping"
	"github.com/frontdoor-go/frontdoor/shed"
)

func ExampleHandler() {
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "app")
	})
	h := ping.Handler("/ping")(app)

	for _, path := range []string{"/ping", "/render"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		fmt.Printf("%s: %d %q\n", path, rec.Code, rec.Body)
	}
	// Output:
	// /ping: 200 "ok\n"
	// /render: 200 "app"
}

func ExampleChecker_Drain() {
	chk := ping.New(ping.Options{LivePath: "/livez", ReadyPath: "/readyz"})
	h := chk.Handler(http.NotFoundHandler())
	show := func() {
		for i, path := range []string{"/livez", "/readyz"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			sep := " | "
			if i == 1 {
				sep = "\n"
			}
			fmt.Printf("%s %d Connection=%q%s", path, rec.Code, rec.Header().Get("Connection"), sep)
		}
	}
	show()
	chk.Drain()
	show()
	// Output:
	// /livez 200 Connection="" | /readyz 200 Connection=""
	// /livez 200 Connection="close" | /readyz 503 Connection="close"
}

func ExampleAgent() {
	s := shed.New(shed.Options{Limit: 8})
	chk := ping.New(ping.Options{ReadyPath: "/ping"})
	agent := ping.NewAgent(ping.AgentOptions{
		Checker: chk,
		Load: func() (int, int) {
			st := s.Stats()
			return int(st.InFlight), int(st.Limit)
		},
	})

	fmt.Printf("%q\n", agent.Reply())
	s.Counter().Inc() // two requests in flight
	s.Counter().Inc()
	fmt.Printf("%q\n", agent.Reply())
	s.SetLimit(4) // the agent follows a limit changed at run time
	fmt.Printf("%q\n", agent.Reply())
	chk.Drain()
	fmt.Printf("%q\n", agent.Reply())
	// Output:
	// "up ready 100%\n"
	// "up ready 75%\n"
	// "up ready 50%\n"
	// "drain\n"
}

// The whole deployment in main: health checks first, an agent port for
// HAProxy, and a graceful drain on SIGTERM.
func ExampleChecker_ServeUntil() {
	s := shed.New(shed.Options{Limit: 4})
	chk := ping.New(ping.Options{ReadyPath: "/ping", LivePath: "/livez", DrainDelay: 3 * time.Second})
	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: chk.Handler(s.Handler(http.NotFoundHandler()))}

	agent := ping.NewAgent(ping.AgentOptions{
		Checker: chk,
		Load: func() (int, int) {
			st := s.Stats()
			return int(st.InFlight), int(st.Limit)
		},
	})
	ln, err := net.Listen("tcp", "127.0.0.1:8081")
	if err != nil {
		log.Fatal(err)
	}
	go agent.ServeAgent(ln)
	defer agent.Close()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := chk.ServeUntil(ctx, srv, srv.ListenAndServe); err != nil {
		log.Fatal(err)
	}
}
