package priority_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/frontdoor-go/frontdoor/priority"
)

func TestFromContext(t *testing.T) {
	if l, ok := priority.FromContext(context.Background()); ok || l != priority.Default {
		t.Errorf("FromContext(empty) = %v, %v; want %v, false", l, ok, priority.Default)
	}
	ctx := priority.WithLevel(context.Background(), priority.SheddablePlus)
	if l, ok := priority.FromContext(ctx); !ok || l != priority.SheddablePlus {
		t.Errorf("FromContext = %v, %v; want sheddable_plus, true", l, ok)
	}
	ctx = priority.WithLevel(ctx, priority.CriticalPlus) // the innermost wins
	if l, _ := priority.FromContext(ctx); l != priority.CriticalPlus {
		t.Errorf("FromContext after a second WithLevel = %v, want critical_plus", l)
	}
}

func TestClassifiers(t *testing.T) {
	req := func(header string, values []string, ctxLevel *priority.Level) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		for _, v := range values {
			r.Header.Add(header, v)
		}
		if ctxLevel != nil {
			r = r.WithContext(priority.WithLevel(r.Context(), *ctxLevel))
		}
		return r
	}
	shed := priority.Sheddable
	for _, tt := range []struct {
		name     string
		classify priority.Classifier
		r        *http.Request
		want     priority.Level
	}{
		{"context empty", priority.Context, req("", nil, nil), priority.Default},
		{"context set", priority.Context, req("", nil, &shed), priority.Sheddable},
		{"header default name", priority.Header(""), req(priority.DefaultHeader, []string{"sheddable"}, nil), priority.Sheddable},
		{"header lower-case name", priority.Header("x-tier"), req("X-Tier", []string{"CRITICAL_PLUS"}, nil), priority.CriticalPlus},
		{"header missing", priority.Header(""), req("Other", []string{"sheddable"}, nil), priority.Default},
		{"header unknown value", priority.Header(""), req(priority.DefaultHeader, []string{"urgent!"}, nil), priority.Default},
		{"header first value", priority.Header(""), req(priority.DefaultHeader, []string{"sheddable_plus", "critical_plus"}, nil), priority.SheddablePlus},
		{"header ignores context", priority.Header(""), req("", nil, &shed), priority.Default},
		{"context ignores header", priority.Context, req(priority.DefaultHeader, []string{"sheddable"}, nil), priority.Default},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.classify(tt.r); got != tt.want {
				t.Errorf("classify = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClassifiersAllocs(t *testing.T) {
	h := priority.Header("")
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set(priority.DefaultHeader, "sheddable-plus")
	rc := r.WithContext(priority.WithLevel(r.Context(), priority.Sheddable))
	allocs := testing.AllocsPerRun(100, func() {
		h(r)
		priority.Context(rc)
	})
	if allocs != 0 {
		t.Errorf("classifiers allocate %v times per request, want 0", allocs)
	}
}
