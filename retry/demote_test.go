package retry_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"

	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/frontdoortest"
	"github.com/frontdoor-go/frontdoor/priority"
	"github.com/frontdoor-go/frontdoor/retry"
)

func ExampleDemote() {
	// On the server: retries count one level lower than the level the
	// request's own header gives, so a limiter refuses them first, e.g.
	// shed.New(shed.Options{Priority: classify}).
	classify := retry.Demote(priority.Header(""))

	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set(priority.DefaultHeader, "critical")
	fmt.Println(classify(r))
	r.Header.Set(retry.AttemptHeader, "2")
	fmt.Println(classify(r))
	// Output:
	// critical
	// sheddable_plus
}

func TestDemote(t *testing.T) {
	fixed := func(l priority.Level) priority.Classifier {
		return func(*http.Request) priority.Level { return l }
	}
	for _, tt := range []struct {
		name    string
		c       priority.Classifier
		attempt []string // AttemptHeader values
		want    priority.Level
	}{
		{"first attempt", fixed(priority.Critical), nil, priority.Critical},
		{"retry", fixed(priority.Critical), []string{"2"}, priority.SheddablePlus},
		{"later retry", fixed(priority.CriticalPlus), []string{"17"}, priority.Critical},
		{"sheddable stays", fixed(priority.Sheddable), []string{"2"}, priority.Sheddable},
		{"nil classifier", nil, nil, priority.Default},
		{"nil classifier retry", nil, []string{"3"}, priority.SheddablePlus},
		{"attempt 1", fixed(priority.Critical), []string{"1"}, priority.Critical},
		{"attempt 01", fixed(priority.Critical), []string{"01"}, priority.Critical},
		{"attempt 02", fixed(priority.Critical), []string{"02"}, priority.SheddablePlus},
		{"attempt 0", fixed(priority.Critical), []string{"0"}, priority.Critical},
		{"empty", fixed(priority.Critical), []string{""}, priority.Critical},
		{"not a number", fixed(priority.Critical), []string{"two"}, priority.Critical},
		{"signed", fixed(priority.Critical), []string{"+2"}, priority.Critical},
		{"first value counts", fixed(priority.Critical), []string{"1", "2"}, priority.Critical},
		{"level out of range", fixed(priority.Level(9)), []string{"2"}, priority.Critical},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			for _, v := range tt.attempt {
				r.Header.Add(retry.AttemptHeader, v)
			}
			if got := retry.Demote(tt.c)(r); got != tt.want {
				t.Errorf("Demote(c)(attempt %q) = %v, want %v", tt.attempt, got, tt.want)
			}
		})
	}
}

func TestDemoteAllocs(t *testing.T) {
	c := retry.Demote(priority.Header(""))
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set(retry.AttemptHeader, "2")
	r.Header.Set(priority.DefaultHeader, "critical")
	if n := testing.AllocsPerRun(100, func() { c(r) }); n != 0 {
		t.Errorf("Demote's classifier allocates %v times per request, want 0", n)
	}
}

// TestDemoteRefusesRetriesFirst: a concurrency Limiter of one slot and a
// queue of one, classifying with Demote, refuses the queued retry to make
// room for a first attempt of the same level; without Demote the first
// attempt is refused.
func TestDemoteRefusesRetriesFirst(t *testing.T) {
	for _, tt := range []struct {
		name           string
		classify       priority.Classifier
		retry, newcome int // the status each gets
	}{
		{"with Demote", retry.Demote(nil), 503, 200},
		{"every request equal", func(*http.Request) priority.Level { return priority.Default }, 200, 503},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := concurrency.New(concurrency.Options{Limit: 1, MaxQueue: 1, QueueTimeout: -1, Priority: tt.classify})
				gate := frontdoortest.NewGate()
				h := l.Handler(gate)
				first := frontdoortest.Start(h, httptest.NewRequest("GET", "/", nil))
				gate.WaitInside(context.Background(), 1)
				r := httptest.NewRequest("GET", "/", nil)
				r.Header.Set(retry.AttemptHeader, "2")
				retried := frontdoortest.Start(h, r)
				synctest.Wait()
				newcomer := frontdoortest.Start(h, httptest.NewRequest("GET", "/", nil))
				synctest.Wait()
				gate.Open()
				if got := (<-first).Code; got != 200 {
					t.Errorf("request in the slot: %d, want 200", got)
				}
				if got := (<-retried).Code; got != tt.retry {
					t.Errorf("queued retry: %d, want %d", got, tt.retry)
				}
				if got := (<-newcomer).Code; got != tt.newcome {
					t.Errorf("first attempt arriving at a full queue: %d, want %d", got, tt.newcome)
				}
			})
		})
	}
}
