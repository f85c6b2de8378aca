package shed_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/frontdoor-go/frontdoor/shed"
)

func TestTryAcquire(t *testing.T) {
	tests := []struct {
		name         string
		limit        int
		inFlight     int
		want         bool
		wantInFlight int64
		wantStats    shed.Stats
	}{
		{"below limit", 2, 1, true, 2, shed.Stats{Admitted: 1, InFlight: 2, Peak: 2, Limit: 2}},
		{"one below limit", 3, 2, true, 3, shed.Stats{Admitted: 1, InFlight: 3, Peak: 3, Limit: 3}},
		{"at limit", 2, 2, false, 2, shed.Stats{Refused: 1, InFlight: 2, Peak: 2, Limit: 2}},
		{"above limit", 1, 3, false, 3, shed.Stats{Refused: 1, InFlight: 3, Peak: 3, Limit: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fill(shed.Options{Limit: tt.limit}, tt.inFlight)
			if got := s.TryAcquire(); got != tt.want {
				t.Errorf("TryAcquire() with %d of %d in flight = %v, want %v", tt.inFlight, tt.limit, got, tt.want)
			}
			if got := s.Stats(); got != tt.wantStats {
				t.Errorf("Stats() = %+v, want %+v", got, tt.wantStats)
			}
			if tt.want {
				s.Release()
			}
			if got := s.Counter().Load(); got != int64(tt.inFlight) {
				t.Errorf("in flight after Release = %d, want %d", got, tt.inFlight)
			}
		})
	}
}

// TestTryAcquireSharesHandlerLimit checks that TryAcquire and Handler take
// places from one limit: a place held by TryAcquire refuses a request, and
// a request in next leaves no place for TryAcquire.
func TestTryAcquireSharesHandlerLimit(t *testing.T) {
	s := shed.New(shed.Options{Limit: 1})
	if !s.TryAcquire() {
		t.Fatal("TryAcquire() on an empty Shedder = false, want true")
	}
	if got := serve(s.Handler(okHandler)).Code; got != http.StatusServiceUnavailable {
		t.Errorf("status while TryAcquire holds the place = %d, want 503", got)
	}
	s.Release()
	var inside bool
	serve(s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inside = s.TryAcquire()
	})))
	if inside {
		t.Error("TryAcquire() while a request holds the place = true, want false")
	}
	want := shed.Stats{Admitted: 2, Refused: 2, Peak: 1, Limit: 1}
	if got := s.Stats(); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

// TestTryAcquireIgnoresExempt checks that Exempt, which needs a request,
// plays no part in TryAcquire.
func TestTryAcquireIgnoresExempt(t *testing.T) {
	s := shed.New(shed.Options{Limit: 1, Exempt: func(*http.Request) bool { return true }})
	if !s.TryAcquire() || s.TryAcquire() {
		t.Error("TryAcquire() twice at limit 1 with Exempt always true: want true then false")
	}
	s.Release()
	if st := s.Stats(); st.Exempt != 0 || st.Admitted != 1 || st.Refused != 1 {
		t.Errorf("Stats() = %+v, want Exempt 0, Admitted 1, Refused 1", st)
	}
}

func TestReleaseWithoutAcquirePanics(t *testing.T) {
	s := shed.New(shed.Options{Limit: 1})
	defer func() {
		if recover() == nil {
			t.Error("Release without TryAcquire did not panic")
		}
		if got := s.Counter().Load(); got != 0 {
			t.Errorf("in flight after the panic = %d, want 0", got)
		}
	}()
	s.Release()
}

// TestTryAcquireBurst calls TryAcquire from many goroutines at once, each
// holding its place until all have tried: exactly the limit succeed.
func TestTryAcquireBurst(t *testing.T) {
	const goroutines, limit = 200, 50
	s := shed.New(shed.Options{Limit: limit})
	var in witness
	start, hold := make(chan struct{}), make(chan struct{})
	var tried, done sync.WaitGroup
	tried.Add(goroutines)
	for range goroutines {
		done.Go(func() {
			<-start
			ok := s.TryAcquire()
			tried.Done()
			if !ok {
				return
			}
			defer s.Release()
			in.enter()
			defer in.leave()
			<-hold
		})
	}
	close(start)
	tried.Wait()
	close(hold)
	done.Wait()
	st := s.Stats()
	if st.Admitted != limit || st.Refused != goroutines-limit || st.InFlight != 0 || st.Peak != limit {
		t.Errorf("Stats() = %+v, want Admitted %d, Refused %d, InFlight 0, Peak %d", st, limit, goroutines-limit, limit)
	}
	if got := in.max.Load(); got > limit {
		t.Errorf("max holding a place = %d, want <= %d", got, limit)
	}
}

func TestTryAcquireAllocs(t *testing.T) {
	for _, inFlight := range []int{0, 1} {
		s := fill(shed.Options{Limit: 1}, inFlight)
		n := testing.AllocsPerRun(100, func() {
			if s.TryAcquire() {
				s.Release()
			}
		})
		if n != 0 {
			t.Errorf("allocations per TryAcquire with %d in flight = %v, want 0", inFlight, n)
		}
	}
}
