package metrics_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/metrics"
)

// Every optional interface of net/http's writer survives Instrument, and
// http.NewResponseController reaches the connection through Unwrap.
func TestInstrumentKeepsInterfaces(t *testing.T) {
	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
	srv, returned := serveOnce(in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Error("writer is not an http.Flusher")
		}
		if _, ok := w.(http.Hijacker); !ok {
			t.Error("writer is not an http.Hijacker")
		}
		if _, ok := w.(io.ReaderFrom); !ok {
			t.Error("writer is not an io.ReaderFrom")
		}
		if _, ok := w.(io.StringWriter); !ok {
			t.Error("writer is not an io.StringWriter")
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			t.Fatal("writer has no Unwrap method")
		}
		if u.Unwrap() == w {
			t.Error("Unwrap() returned the wrapper itself")
		}

		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("SetWriteDeadline() = %v", err)
		}
		if err := rc.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("SetReadDeadline() = %v", err)
		}
		if err := rc.EnableFullDuplex(); err != nil {
			t.Errorf("EnableFullDuplex() = %v", err)
		}
		w.WriteHeader(http.StatusAccepted)
		if err := rc.Flush(); err != nil {
			t.Errorf("Flush() = %v", err)
		}
		conn, brw, err := rc.Hijack()
		if err != nil {
			t.Fatalf("Hijack() = %v", err)
		}
		defer conn.Close()
		// The 202 header was flushed before the hijack; finish the
		// chunked response by hand.
		brw.WriteString("2\r\nhi\r\n0\r\n\r\n")
		brw.Flush()
	})))
	defer srv.Close()

	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted || string(b) != "hi" || err != nil {
		t.Fatalf("response = %d %q %v, want 202 \"hi\" <nil>", res.StatusCode, b, err)
	}
	<-returned // the client has the whole response before the handler returns
	if got := in.Stats().Classes["2xx"].Requests; got != 1 {
		t.Errorf("2xx requests = %d, want 1", got)
	}
}

// The wrapper adds no interface the inner writer lacks: a ResponseRecorder
// flushes but cannot hijack, and so does the wrapped writer.
func TestInstrumentAddsNoInterfaces(t *testing.T) {
	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{})
	in.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Error("writer is not an http.Flusher")
		}
		if _, ok := w.(http.Hijacker); ok {
			t.Error("writer is an http.Hijacker; the recorder is not")
		}
		if _, ok := w.(io.ReaderFrom); ok {
			t.Error("writer is an io.ReaderFrom; the recorder is not")
		}
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("Flush() = %v", err)
		}
		if _, _, err := http.NewResponseController(w).Hijack(); err == nil {
			t.Error("Hijack() = nil error, want http.ErrNotSupported")
		}
	})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

// serveOnce serves h on a new test server and closes the returned channel
// when h has returned from the first request.
func serveOnce(h http.Handler) (*httptest.Server, <-chan struct{}) {
	returned := make(chan struct{})
	var once sync.Once
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer once.Do(func() { close(returned) })
		h.ServeHTTP(w, r)
	})), returned
}
