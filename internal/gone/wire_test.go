package gone

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Over real connections, HTTP/1.1 and HTTP/2: a client that hangs up (or
// resets its stream) is gone; one whose request context the server's
// BaseContext or a middleware outside canceled is not, and gets its
// answer.
func TestClientOverTheWire(t *testing.T) {
	for _, proto := range []string{"HTTP/1.1", "HTTP/2"} {
		for _, tc := range []struct {
			name string
			// end ends the request's context once the handler waits, by
			// hanging up or by canceling one of the server's contexts.
			end  func(hangUp func(), base, outer context.CancelFunc)
			gone bool
		}{
			{"client hangs up", func(hangUp func(), _, _ context.CancelFunc) { hangUp() }, true},
			{"BaseContext canceled", func(_ func(), base, _ context.CancelFunc) { base() }, false},
			{"outer middleware cancels", func(_ func(), _, outer context.CancelFunc) { outer() }, false},
		} {
			t.Run(proto+"/"+tc.name, func(t *testing.T) {
				testOverTheWire(t, proto, tc.end, tc.gone)
			})
		}
	}
}

func testOverTheWire(t *testing.T, proto string, end func(hangUp func(), base, outer context.CancelFunc), want bool) {
	baseCtx, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	outerCtx, cancelOuter := context.WithCancel(context.Background())
	defer cancelOuter()
	waiting := make(chan struct{})
	result := make(chan bool, 1)
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(waiting)
		<-r.Context().Done()
		g := Client(r.Context(), w)
		result <- g
		if !g {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	// The middleware outside cancels the context it passes on when
	// outerCtx ends.
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(outerCtx, cancel)
		defer stop()
		inner.ServeHTTP(w, r.WithContext(ctx))
	}))
	srv.Config.BaseContext = func(net.Listener) context.Context { return baseCtx }
	if proto == "HTTP/2" {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()

	reqCtx, hangUp := context.WithCancel(context.Background())
	defer hangUp()
	req, _ := http.NewRequestWithContext(reqCtx, "GET", srv.URL, nil)
	answered := make(chan error, 1)
	go func() {
		resp, err := client.Do(req)
		if err == nil {
			if resp.ProtoMajor != map[string]int{"HTTP/1.1": 1, "HTTP/2": 2}[proto] {
				err = fmt.Errorf("spoke %s, want %s", resp.Proto, proto)
			} else if resp.StatusCode != http.StatusServiceUnavailable {
				err = fmt.Errorf("status %d, want 503", resp.StatusCode)
			}
			resp.Body.Close()
		}
		answered <- err
	}()
	<-waiting
	end(hangUp, cancelBase, cancelOuter)
	if got := <-result; got != want {
		t.Errorf("Client() = %v, want %v", got, want)
	}
	if err := <-answered; !want && err != nil {
		t.Errorf("the client still connected got no answer: %v", err)
	}
}
