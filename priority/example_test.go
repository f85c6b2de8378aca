package priority_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/frontdoor-go/frontdoor/priority"
)

func ExampleParse() {
	l, ok := priority.Parse("SHEDDABLE_PLUS")
	fmt.Println(l, ok, l < priority.Critical)
	// Output: sheddable_plus true true
}

func ExampleClassifier() {
	// Prefetches are sheddable; other requests keep the level an earlier
	// middleware put in their context, or Default.
	var classify priority.Classifier = func(r *http.Request) priority.Level {
		if r.URL.Path == "/prefetch" {
			return priority.Sheddable
		}
		return priority.Context(r)
	}
	fmt.Println(classify(httptest.NewRequest("GET", "/prefetch", nil)))
	fmt.Println(classify(httptest.NewRequest("GET", "/play", nil)))
	// Output:
	// sheddable
	// critical
}

func ExampleWithLevel() {
	// An authentication middleware marks its internal batch callers.
	mark := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") == "Bearer batch-job" {
				r = r.WithContext(priority.WithLevel(r.Context(), priority.SheddablePlus))
			}
			next.ServeHTTP(w, r)
		})
	}
	h := mark(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(priority.Context(r))
	}))
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Authorization", "Bearer batch-job")
	h.ServeHTTP(httptest.NewRecorder(), r)
	// Output: sheddable_plus
}
