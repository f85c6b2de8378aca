package concurrency_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/frontdoor-go/frontdoor/concurrency"
)

func ExampleLimit() {
	render := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "<html>…</html>")
	})
	mux := http.NewServeMux()
	mux.Handle("/render", concurrency.Limit(1)(render))

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/render", nil))
	fmt.Println(rec.Code)
	// Output: 200
}

func ExampleNew() {
	l := concurrency.New(concurrency.Options{
		Limit:        2,                     // one render per core...
		MaxQueue:     16,                    // ...a short queue...
		QueueTimeout: 50 * time.Millisecond, // ...that clients timing out at 100ms can afford
	})
	busy := make(chan struct{})
	done := make(chan struct{})
	h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-busy
	}))
	for range 2 {
		go func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)); done <- struct{}{} }()
	}
	for l.Stats().Running < 2 {
		time.Sleep(time.Millisecond)
	}
	// Both slots are busy: this request waits its 50ms budget, then gets a 503.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	fmt.Println(rec.Code, rec.Header().Get("Retry-After"))
	close(busy)
	<-done
	<-done
	s := l.Stats()
	fmt.Printf("admitted %d, timed out %d, running %d\n", s.Admitted, s.TimedOut, s.Running)
	// Output:
	// 503 1
	// admitted 2, timed out 1, running 0
}

// Slots with no number: the limit finds itself, and MaxQueue follows it.
func ExampleNew_adaptive() {
	l := concurrency.New(concurrency.Options{}) // Limit 0: the limit finds itself
	h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "<html>…</html>")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/render", nil))
	st := l.Stats()
	fmt.Println(rec.Code, st.Limit >= 1, st.MaxQueue == concurrency.DefaultQueueFactor*st.Limit, st.Adaptive != nil)
	// Output: 200 true true true
}

// A server of CPU-bound renders with no number to tune: one P more than
// Go's default for the front door, and render slots that find themselves
// under it.
func ExampleReserveP() {
	concurrency.ReserveP() // early in main, before the server starts
	render := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "<html>…</html>")
	})
	mux := http.NewServeMux()
	mux.Handle("/render", concurrency.New(concurrency.Options{}).Handler(render))
	_ = http.ListenAndServe(":8080", mux)
}
