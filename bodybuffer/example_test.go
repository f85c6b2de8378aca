package bodybuffer_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
)

func ExampleLimit() {
	render := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The body is complete here: reading it never waits on the client.
		props, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "rendered %d bytes of props", len(props))
	})
	h := bodybuffer.Limit(1 << 20)(render)

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/render", strings.NewReader(`{"listing":42}`)))
	fmt.Println(w.Code, w.Body.String())
	// Output: 200 rendered 14 bytes of props
}

func ExampleNew() {
	bb := bodybuffer.New(bodybuffer.Options{
		MaxBytes:    8 << 20,          // 413 above 8 MiB
		MemBytes:    256 << 10,        // spool to disk above 256 KiB
		IdleTimeout: 10 * time.Second, // 408 after 10 s without a byte
		Timeout:     30 * time.Second, // 408 if the whole body takes longer
	})
	h := bb.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))

	r := httptest.NewRequest("POST", "/", strings.NewReader("x"))
	r.ContentLength = 9 << 20 // declared too large: refused before reading
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Header().Get("Connection"), bb.Stats().TooLarge)
	// Output: 413 close 1
}

func ExampleOptions_exempt() {
	bb := bodybuffer.New(bodybuffer.Options{
		// Uploads to /stream are read by the handler as they arrive.
		Exempt: func(r *http.Request) bool { return r.URL.Path == "/stream" },
	})
	h := bb.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%d bytes", n)
	}))
	for _, path := range []string{"/stream", "/render"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", path, strings.NewReader("data")))
	}
	s := bb.Stats()
	fmt.Println("passed", s.Passed, "buffered", s.Buffered)
	// Output: passed 1 buffered 1
}
