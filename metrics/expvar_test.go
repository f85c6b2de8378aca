package metrics_test

import (
	"encoding/json"
	"errors"
	"expvar"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/frontdoor-go/frontdoor/metrics"
	"github.com/frontdoor-go/frontdoor/shed"
)

// expvar names are global to the process; every test run takes new ones.
var run atomic.Int64

func uniqueName(prefix string) string { return fmt.Sprintf("%s.%d", prefix, run.Add(1)) }

func TestPublish(t *testing.T) {
	s := shed.New(shed.Options{Limit: 1})
	name := uniqueName("frontdoor.shed.api")
	if err := metrics.Publish(name, func() any { return s.Stats() }); err != nil {
		t.Fatalf("Publish() = %v, want nil", err)
	}
	shedTraffic(t, s, 2, 3)

	// Read it the way a user does: GET /debug/vars.
	rec := httptest.NewRecorder()
	expvar.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/vars", nil))
	var vars map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &vars); err != nil {
		t.Fatalf("/debug/vars is not JSON: %v", err)
	}
	var got shed.Stats
	if err := json.Unmarshal(vars[name], &got); err != nil {
		t.Fatalf("%s = %s: %v", name, vars[name], err)
	}
	want := shed.Stats{Admitted: 2, Refused: 3, Peak: 1, Limit: 1}
	if got != want {
		t.Errorf("%s = %+v, want %+v", name, got, want)
	}
}

// A name already taken is an error, not expvar's panic, and the first
// variable stays.
func TestPublishDuplicate(t *testing.T) {
	name := uniqueName("frontdoor.dup")
	if err := metrics.Publish(name, func() any { return 1 }); err != nil {
		t.Fatalf("first Publish() = %v, want nil", err)
	}
	err := metrics.Publish(name, func() any { return 2 })
	var dup *metrics.DuplicateError
	if !errors.As(err, &dup) || dup.Name != name {
		t.Fatalf("second Publish() = %v, want a *DuplicateError for %q", err, name)
	}
	if got := expvar.Get(name).String(); got != "1" {
		t.Errorf("expvar %s = %s, want 1 (the first)", name, got)
	}

	// A name taken directly through expvar is refused the same way.
	other := uniqueName("frontdoor.direct")
	expvar.NewInt(other)
	if err := metrics.Publish(other, func() any { return 0 }); !errors.As(err, &dup) {
		t.Errorf("Publish(name from expvar.NewInt) = %v, want a *DuplicateError", err)
	}
}

// An Instrumenter's Stats marshal to JSON by status class.
func TestPublishInstrumenter(t *testing.T) {
	in := metrics.NewInstrumenter("api", metrics.InstrumenterOptions{Buckets: []float64{0.5}})
	in.Handler(http.NotFoundHandler()).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	name := uniqueName("frontdoor.http.api")
	if err := metrics.Publish(name, func() any { return in.Stats() }); err != nil {
		t.Fatal(err)
	}
	var got metrics.InstrumenterStats
	if err := json.Unmarshal([]byte(expvar.Get(name).String()), &got); err != nil {
		t.Fatal(err)
	}
	c := got.Classes["4xx"]
	if c.Requests != 1 || c.Bytes != 19 || c.Duration.Count != 1 || len(c.Duration.Bounds) != 1 {
		t.Errorf("4xx = %+v, want 1 request, 19 bytes, one observation in one bucket", c)
	}
}
