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

	"github.com/frontdoor-go/frontdoor/inflight"
	"github.com/frontdoor-go/frontdoor/ping"
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
	var inFlight inflight.Counter // shared with shed.Options.Counter
	chk := ping.New(ping.Options{ReadyPath: "/ping"})
	agent := ping.NewAgent(ping.AgentOptions{Checker: chk, Counter: &inFlight, Limit: 8})

	fmt.Printf("%q\n", agent.Reply())
	inFlight.Inc()
	inFlight.Inc()
	fmt.Printf("%q\n", agent.Reply())
	chk.Drain()
	fmt.Printf("%q\n", agent.Reply())
	// Output:
	// "up ready 100%\n"
	// "up ready 75%\n"
	// "drain\n"
}

// The whole deployment in main: health checks first, an agent port for
// HAProxy, and a graceful drain on SIGTERM.
func ExampleChecker_ServeUntil() {
	var inFlight inflight.Counter
	chk := ping.New(ping.Options{ReadyPath: "/ping", LivePath: "/livez", DrainDelay: 3 * time.Second})
	app := inflight.Track(&inFlight)(http.NotFoundHandler())
	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: chk.Handler(app)}

	agent := ping.NewAgent(ping.AgentOptions{Checker: chk, Counter: &inFlight, Limit: 4})
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
