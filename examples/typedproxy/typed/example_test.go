package typed_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
	"github.com/frontdoor-go/frontdoor/examples/typedproxy/typed"
	"github.com/frontdoor-go/frontdoor/inflight"
)

// The front, counted by inflight.Track, forwarding to a typed upstream.
func Example() {
	// Upstream: typed requests in, typed responses out.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	up := &typed.Server{Handler: func(w *frame.Response, r *frame.Request) {
		w.ContentType = "text/plain; charset=utf-8"
		w.Body = fmt.Appendf(nil, "hello v%d %s %s\n", r.Version, r.Method, r.URL)
	}}
	go up.Serve(l)
	defer up.Close()

	// Front: an http.Handler like any other, inside frontdoor middlewares.
	var inFlight inflight.Counter
	front := typed.NewFront(typed.FrontOptions{Addr: l.Addr().String(), MaxConns: 8})
	defer front.Close()
	srv := httptest.NewServer(inflight.Track(&inFlight)(front))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/v2/greeting?lang=en")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	fmt.Print(resp.StatusCode, " ", resp.Header.Get("Content-Type"), "\n", string(body))
	fmt.Println("in flight:", inFlight.Load(), "peak:", inFlight.Peak())
	// Output:
	// 200 text/plain; charset=utf-8
	// hello v2 GET /v2/greeting?lang=en
	// in flight: 0 peak: 1
}
