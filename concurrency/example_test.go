package concurrency_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
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
		Limit:        3,                     // cores + 1 on two cores, with GOMAXPROCS at Limit + 1 (see the sizing rule)
		MaxQueue:     -1,                    // no queue: a request that finds every slot busy is refused at once
		QueueTimeout: 50 * time.Millisecond, // with a queue, the most a request would wait
	})
	h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "<html>…</html>")
	}))

	// Three jobs outside HTTP take every slot.
	var held []func()
	for range 3 {
		release, _ := l.TryAcquire()
		held = append(held, release)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	fmt.Println(rec.Code, rec.Header().Get("Retry-After"))

	held[0]() // one slot comes free
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	fmt.Println(rec.Code)

	for _, release := range held[1:] {
		release()
	}
	s := l.Stats()
	fmt.Printf("admitted %d, refused %d (queue full %d), running %d\n", s.Admitted, s.Refused, s.QueueFull, s.Running)
	// Output:
	// 503 1
	// 200
	// admitted 4, refused 1 (queue full 1), running 0
}

// A job loop shares a limit with others: Acquire waits for a slot, so the
// loop starts at most Limit jobs at once.
func ExampleLimiter_Acquire() {
	l := concurrency.New(concurrency.Options{
		Limit:        2,
		QueueTimeout: -1, // jobs wait for a slot as long as their context allows
	})
	ctx := context.Background()
	squares := make([]int, 6)
	var wg sync.WaitGroup
	for i := range squares {
		release, err := l.Acquire(ctx)
		if err != nil {
			fmt.Println(err)
			break
		}
		wg.Go(func() {
			defer release()
			squares[i] = i * i
		})
	}
	wg.Wait()
	fmt.Println(squares, l.Stats().Admitted)
	// Output: [0 1 4 9 16 25] 6
}

// A refusal outside HTTP is a *RefusedError with the reason and when to
// come back.
func ExampleRefusedError() {
	l := concurrency.New(concurrency.Options{Limit: 1, MaxQueue: -1})
	release, _ := l.TryAcquire() // the only slot
	defer release()

	_, err := l.Acquire(context.Background())
	var refused *concurrency.RefusedError
	if errors.As(err, &refused) {
		fmt.Println(refused.Reason, refused.RetryAfter)
	}
	fmt.Println(err)
	// Output:
	// queue full 1s
	// concurrency: refused (queue full), retry after 1s
}

func ExampleLimiter_TryAcquire() {
	l := concurrency.New(concurrency.Options{Limit: 1})
	release, ok := l.TryAcquire()
	fmt.Println(ok)
	_, ok = l.TryAcquire() // the slot is taken: no waiting
	fmt.Println(ok)
	release()
	release() // a second call does nothing
	fmt.Println(l.Stats().Running)
	// Output:
	// true
	// false
	// 0
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
