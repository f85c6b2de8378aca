package shed_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/frontdoortest"
	"github.com/frontdoor-go/frontdoor/priority"
	"github.com/frontdoor-go/frontdoor/shed"
)

// levelRequest returns a request to path whose priority header says l.
func levelRequest(path string, l priority.Level) *http.Request {
	r := httptest.NewRequest("GET", path, nil)
	r.Header.Set(priority.DefaultHeader, l.String())
	return r
}

// waitInside waits until gate holds n requests, for at most ten seconds.
func waitInside(t *testing.T, gate *frontdoortest.Gate, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := gate.WaitInside(ctx, n); err != nil {
		t.Fatalf("WaitInside(%d): %v; %d inside", n, err, gate.Inside())
	}
}

// withReserve returns a Shedder of limit 20 classifying by header, whose
// handler holds requests to /hold in the returned gate and answers others
// at once. Five critical requests are held, and enough sheddable ones
// have passed for the Shedder to learn the critical demand; the slots it
// reserves for it are then filled with held sheddable requests.
func withReserve(t *testing.T, opts shed.Options) (*shed.Shedder, http.Handler, *frontdoortest.Gate, []<-chan *httptest.ResponseRecorder) {
	t.Helper()
	opts.Limit = 20
	opts.Priority = priority.Header("")
	s := shed.New(opts)
	gate := frontdoortest.NewGate()
	mux := http.NewServeMux()
	mux.Handle("/hold", gate)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {})
	h := s.Handler(mux)
	var held []<-chan *httptest.ResponseRecorder
	for range 5 {
		held = append(held, frontdoortest.Start(h, levelRequest("/hold", priority.Critical)))
	}
	waitInside(t, gate, 5)
	for i := range 1000 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, levelRequest("/", priority.Sheddable))
		if rec.Code != 200 {
			t.Fatalf("sheddable request %d with 5 of 20 in flight: %d, want 200", i, rec.Code)
		}
	}
	reserved := s.Stats().Levels[priority.Sheddable.Index()].Reserved
	if reserved <= 0 || reserved > 10 {
		t.Fatalf("sheddable Reserved = %d, want 1..10 for 5 critical in flight", reserved)
	}
	for range 20 - reserved - 5 {
		held = append(held, frontdoortest.Start(h, levelRequest("/hold", priority.Sheddable)))
	}
	waitInside(t, gate, 20-reserved)
	return s, h, gate, held
}

func TestPriorityWhoIsRefused(t *testing.T) {
	s, h, gate, held := withReserve(t, shed.Options{})
	defer func() {
		gate.Open()
		for _, c := range held {
			<-c
		}
	}()
	for _, tt := range []struct {
		l    priority.Level
		want int
	}{
		{priority.Sheddable, 503},
		{priority.SheddablePlus, 503}, // the same levels above it
		{priority.Critical, 200},
		{priority.CriticalPlus, 200},
		{priority.Sheddable, 503},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, levelRequest("/", tt.l))
		if rec.Code != tt.want {
			t.Errorf("%v with the unreserved slots full: %d, want %d", tt.l, rec.Code, tt.want)
		}
		wantHeader := ""
		if tt.want == 503 {
			wantHeader = tt.l.String()
		}
		if got := rec.Header().Get(priority.DefaultHeader); got != wantHeader {
			t.Errorf("%v: %s = %q, want %q", tt.l, priority.DefaultHeader, got, wantHeader)
		}
	}
	// Critical requests may take the reserved slots, up to the limit.
	reserved := s.Stats().Levels[priority.Sheddable.Index()].Reserved
	for range reserved {
		held = append(held, frontdoortest.Start(h, levelRequest("/hold", priority.Critical)))
	}
	waitInside(t, gate, 20)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, levelRequest("/", priority.CriticalPlus))
	if rec.Code != 503 || rec.Header().Get(priority.DefaultHeader) != "critical_plus" {
		t.Errorf("critical_plus at the limit: %d %q, want 503 critical_plus", rec.Code, rec.Header().Get(priority.DefaultHeader))
	}

	st := s.Stats()
	for _, tt := range []struct {
		l                 priority.Level
		admitted, refused uint64
	}{
		{priority.Sheddable, 1000 + uint64(15-reserved), 2},
		{priority.SheddablePlus, 0, 1},
		{priority.Critical, 5 + 1 + uint64(reserved), 0},
		{priority.CriticalPlus, 1, 1},
	} {
		got := st.Levels[tt.l.Index()]
		if got.Admitted != tt.admitted || got.Refused != tt.refused {
			t.Errorf("Stats().Levels[%v] = %+v, want Admitted %d, Refused %d", tt.l, got, tt.admitted, tt.refused)
		}
	}
	if st.Refused != 4 {
		t.Errorf("Stats().Refused = %d, want 4", st.Refused)
	}
}

// TestPriorityReject: Reject reads the level refused from the header, on
// a value of its own.
func TestPriorityReject(t *testing.T) {
	reject := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		level := h.Get(priority.DefaultHeader)
		h[priority.DefaultHeader][0] = "scribbled" // must not reach the next refusal
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, "refused "+level)
	})
	_, h, gate, held := withReserve(t, shed.Options{Reject: reject})
	defer func() {
		gate.Open()
		for _, c := range held {
			<-c
		}
	}()
	for range 2 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, levelRequest("/", priority.SheddablePlus))
		if rec.Code != 429 || rec.Body.String() != "refused sheddable_plus" {
			t.Errorf("refusal = %d %q, want 429 \"refused sheddable_plus\"", rec.Code, rec.Body.String())
		}
	}
}

// TestPriorityOff: without Priority a refusal names no level and nothing
// is counted per level.
func TestPriorityOff(t *testing.T) {
	s := shed.New(shed.Options{Limit: 1})
	gate := frontdoortest.NewGate()
	h := s.Handler(gate)
	c := frontdoortest.Start(h, levelRequest("/", priority.Critical))
	waitInside(t, gate, 1)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, levelRequest("/", priority.CriticalPlus))
	gate.Open()
	<-c
	if rec.Code != 503 || rec.Header().Get(priority.DefaultHeader) != "" {
		t.Errorf("refusal = %d with %s %q, want 503 without it", rec.Code, priority.DefaultHeader, rec.Header().Get(priority.DefaultHeader))
	}
	if st := s.Stats(); st.Levels != nil {
		t.Errorf("Stats().Levels = %+v, want nil", st.Levels)
	}
}

func TestPriorityAllocs(t *testing.T) {
	for _, tenant := range []func(*http.Request) string{nil, func(r *http.Request) string { return r.URL.Path }} {
		s := shed.New(shed.Options{Limit: 1, Priority: priority.Header(""), Tenant: tenant})
		h := s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		w := &nopWriter{h: make(http.Header)}
		admitted := levelRequest("/", priority.Sheddable)
		if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, admitted) }); n != 0 {
			t.Errorf("admitted request (tenant %v): %v allocations, want 0", tenant != nil, n)
		}
		if !s.TryAcquire() {
			t.Fatal("TryAcquire on an empty Shedder = false")
		}
		if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, admitted) }); n != 0 {
			t.Errorf("refused request (tenant %v): %v allocations, want 0", tenant != nil, n)
		}
		s.Release()
		if st := s.Stats(); st.Levels[priority.Sheddable.Index()].Refused == 0 || st.InFlight != 0 {
			t.Errorf("Stats() = %+v, want sheddable refusals and nothing in flight", st)
		}
	}
}

// TestPriorityWire sends two classes over real connections, each client
// propagating its level with priority.Transport, into a limit that is
// mostly full, and checks that the Shedder's counts per level are the
// answers the clients got, that each refusal names its own level, and
// that critical requests are refused less than sheddable ones.
func TestPriorityWire(t *testing.T) {
	s := shed.New(shed.Options{Limit: 8, Priority: priority.Header("")})
	var mu sync.Mutex
	release := make(chan struct{})
	srv, client := newServer(t, s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	})))
	client.Transport = &priority.Transport{Base: client.Transport}

	type count struct{ ok, refused, wrongHeader int }
	got := map[priority.Level]*count{priority.Critical: {}, priority.Sheddable: {}}
	send := func(l priority.Level, path string) {
		ctx := priority.WithLevel(context.Background(), l)
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		mu.Lock()
		defer mu.Unlock()
		switch resp.StatusCode {
		case 200:
			got[l].ok++
		case 503:
			got[l].refused++
			if resp.Header.Get(priority.DefaultHeader) != l.String() {
				got[l].wrongHeader++
			}
		}
	}
	// Three critical requests stay in flight: demand the Shedder learns.
	var holders sync.WaitGroup
	for range 3 {
		holders.Add(1)
		go func() { defer holders.Done(); send(priority.Critical, "/hold") }()
	}
	for s.Counter().Load() < 3 {
		send(priority.Sheddable, "/") // passes while the holders connect
	}
	// Then both classes, 80% sheddable, from 16 concurrent clients.
	var wg sync.WaitGroup
	for c := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 150 {
				l := priority.Sheddable
				if (c*150+i)%5 == 0 {
					l = priority.Critical
				}
				send(l, "/")
			}
		}()
	}
	wg.Wait()
	close(release)
	holders.Wait()
	waitZero(t, s)

	st := s.Stats()
	for l, c := range got {
		ls := st.Levels[l.Index()]
		if ls.Admitted != uint64(c.ok) || ls.Refused != uint64(c.refused) {
			t.Errorf("%v: Stats admitted %d refused %d; clients got %d ok, %d refused", l, ls.Admitted, ls.Refused, c.ok, c.refused)
		}
		if c.wrongHeader != 0 {
			t.Errorf("%v: %d refusals named another level", l, c.wrongHeader)
		}
	}
	crit, shd := got[priority.Critical], got[priority.Sheddable]
	t.Logf("critical %d ok %d refused; sheddable %d ok %d refused", crit.ok, crit.refused, shd.ok, shd.refused)
	if crit.refused*(shd.ok+shd.refused) > shd.refused*(crit.ok+crit.refused) {
		t.Errorf("critical refused %d of %d, more often than sheddable (%d of %d)",
			crit.refused, crit.ok+crit.refused, shd.refused, shd.ok+shd.refused)
	}
}

// TestPriorityWithLimitThatFindsItself: priorities work on a limit that
// finds itself as on a fixed one: the Gate is given the limit of the
// moment, and the controller hears of every admitted request.
func TestPriorityWithLimitThatFindsItself(t *testing.T) {
	s := shed.New(shed.Options{Priority: priority.Header("")})
	h := s.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for _, l := range []priority.Level{priority.Sheddable, priority.Critical, priority.Sheddable} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, levelRequest("/", l))
		if rec.Code != 200 {
			t.Errorf("%v on an idle Shedder: %d, want 200", l, rec.Code)
		}
	}
	st := s.Stats()
	if st.Adaptive == nil || st.Levels == nil {
		t.Fatalf("Stats() = %+v, want Adaptive and Levels", st)
	}
	if got := st.Levels[priority.Sheddable.Index()].Admitted; got != 2 {
		t.Errorf("sheddable admitted %d, want 2", got)
	}
	if st.InFlight != 0 {
		t.Errorf("InFlight = %d, want 0", st.InFlight)
	}
}
