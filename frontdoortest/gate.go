// Package frontdoortest provides helpers for testing handlers wrapped in
// frontdoor's middlewares with net/http/httptest: a handler that holds
// requests inside until the test lets them go, so a test can fill a limit
// and check what the next request gets.
//
//	gate := frontdoortest.NewGate()
//	h := shed.Limit(2)(gate)
//	held := []<-chan *httptest.ResponseRecorder{
//		frontdoortest.Start(h, httptest.NewRequest("GET", "/", nil)),
//		frontdoortest.Start(h, httptest.NewRequest("GET", "/", nil)),
//	}
//	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
//	defer cancel()
//	if err := gate.WaitInside(ctx, 2); err != nil { // the limit is full
//		t.Fatal(err)
//	}
//	rec := httptest.NewRecorder()
//	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil)) // 503
//	gate.Open()
//	for _, c := range held {
//		<-c // 200
//	}
//
// Everything here works inside a testing/synctest bubble, where waiting
// for a queued request is synctest.Wait, and outside one, where
// WaitInside needs a context with a timeout to fail rather than hang.
package frontdoortest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
)

// A Gate is an http.Handler that holds every request it receives until
// Open is called, or until the request's context is done, and then
// answers 200 OK with the body "ok". Create it with NewGate. A Gate is safe
// for concurrent use by multiple goroutines.
type Gate struct {
	open chan struct{}
	once sync.Once

	mu      sync.Mutex
	inside  int
	changed chan struct{} // closed and replaced each time inside changes
}

// NewGate returns a closed Gate.
func NewGate() *Gate {
	return &Gate{open: make(chan struct{}), changed: make(chan struct{})}
}

// ServeHTTP holds r until the gate opens, then answers 200 "ok". If r's
// context ends first it returns without writing anything.
func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.add(1)
	defer g.add(-1)
	select {
	case <-g.open:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok"))
	case <-r.Context().Done():
	}
}

// Inside returns how many requests the gate holds now.
func (g *Gate) Inside() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inside
}

// WaitInside blocks until the gate holds at least n requests, and then
// returns nil, or until ctx is done, and then returns ctx.Err(). With a
// ctx that is never done (context.Background) it blocks for as long as n
// is not reached: inside a testing/synctest bubble, synctest reports the
// deadlock once nothing else can run; outside one, pass a ctx with a
// timeout, or the test hangs until go test's -timeout.
func (g *Gate) WaitInside(ctx context.Context, n int) error {
	for {
		g.mu.Lock()
		inside, changed := g.inside, g.changed
		g.mu.Unlock()
		if inside >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Open lets every held request, and every later one, through. Calling it
// again does nothing.
func (g *Gate) Open() {
	g.once.Do(func() { close(g.open) })
}

func (g *Gate) add(d int) {
	g.mu.Lock()
	g.inside += d
	close(g.changed)
	g.changed = make(chan struct{})
	g.mu.Unlock()
}

// Start serves r with h in a new goroutine and returns a channel that
// receives the recorded response once h returns. The channel has a buffer
// of one, so the goroutine never outlives h even if nobody receives.
func Start(h http.Handler, r *http.Request) <-chan *httptest.ResponseRecorder {
	c := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		c <- rec
	}()
	return c
}
