package retry

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
)

func TestThrottleProbability(t *testing.T) {
	th := newThrottle(2, time.Now())
	for _, tt := range []struct {
		requests, accepts uint64
		want              [priority.NumLevels]float64 // lowest level first
	}{
		{100, 100, [4]float64{0, 0, 0, 0}},
		{100, 60, [4]float64{25.0 / 101, 10.0 / 101, 0, 0}},
		{100, 40, [4]float64{50.0 / 101, 40.0 / 101, 20.0 / 101, 0}},
		{100, 20, [4]float64{75.0 / 101, 70.0 / 101, 60.0 / 101, 40.0 / 101}},
		{100, 0, [4]float64{0.9, 0.9, 0.9, 0.9}}, // capped
		{9, 0, [4]float64{0, 0, 0, 0}},           // too few to judge
		{10, 0, [4]float64{0.9, 0.9, 0.9, 0.9}},
	} {
		for i, l := range priority.Levels() {
			if got := th.probability(l, tt.requests, tt.accepts); !near(got, tt.want[i]) {
				t.Errorf("probability(%v, %d requests, %d accepts) = %.4f, want %.4f", l, tt.requests, tt.accepts, got, tt.want[i])
			}
		}
	}
	if got := th.probability(priority.Level(-7), 100, 60); !near(got, 25.0/101) {
		t.Errorf("a level below Sheddable: %.4f, want Sheddable's", got)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestThrottleCounts is the path where bradenaw/backpressure miscounts
// (an accepted call that returns an error counted as a rejection): an
// answer with an error status is an accept, and so never throttled; only
// refusals, and errors other than the caller's cancellation, are not.
func TestThrottleCounts(t *testing.T) {
	for _, tt := range []struct {
		name      string
		script    []outcome
		ctx       func() (context.Context, context.CancelFunc)
		wantThrot bool
	}{
		{name: "500 accepted", script: []outcome{{status: 500}}},
		{name: "404 accepted", script: []outcome{{status: 404}}},
		{name: "502 accepted", script: []outcome{{status: 502}}},
		{name: "504 accepted", script: []outcome{{status: 504}}},
		{name: "200 accepted", script: []outcome{{status: 200}}},
		{name: "503 refused", script: []outcome{{status: 503}}, wantThrot: true},
		{name: "429 refused", script: []outcome{{status: 429}}, wantThrot: true},
		{name: "errors refused", script: []outcome{{err: errReset}}, wantThrot: true},
		{name: "deadline counts", script: []outcome{{err: context.DeadlineExceeded}}, wantThrot: true,
			ctx: func() (context.Context, context.CancelFunc) { return context.WithTimeout(context.Background(), 0) }},
		{name: "caller's cancel not counted", script: []outcome{{err: context.Canceled}},
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := &fakeBase{script: tt.script}
			tr := fixedRandom(&Transport{Base: base, MaxAttempts: 1}, 0.5)
			for range 100 {
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if tt.ctx != nil {
					ctx, cancel = tt.ctx()
				}
				req, _ := http.NewRequestWithContext(ctx, "GET", "http://example.com/", nil)
				resp, err := tr.RoundTrip(req)
				if err == nil {
					resp.Body.Close()
				}
				cancel()
			}
			st := tr.Stats()
			if got := st.Throttled > 0; got != tt.wantThrot {
				t.Errorf("Stats.Throttled = %d, want throttling %v", st.Throttled, tt.wantThrot)
			}
			if got := st.Throttle[priority.Critical.Index()] > 0; got != tt.wantThrot {
				t.Errorf("Stats.Throttle = %v, want throttling %v", st.Throttle, tt.wantThrot)
			}
		})
	}
}

// TestThrottledError: a request refused locally is not sent, its body is
// closed, and the error says so and names its level.
func TestThrottledError(t *testing.T) {
	base := &fakeBase{script: []outcome{{status: 503}}}
	tr := fixedRandom(&Transport{Base: base, MaxAttempts: 1}, 0)
	for range throttleMin {
		req, _ := http.NewRequest("GET", "http://example.com/", nil)
		resp, _ := tr.RoundTrip(req)
		resp.Body.Close()
	}
	ctx := priority.WithLevel(context.Background(), priority.SheddablePlus)
	body := &reqBody{Reader: strings.NewReader("x")}
	req, _ := http.NewRequestWithContext(ctx, "PUT", "http://example.com/", body)
	_, err := tr.RoundTrip(req)
	var te *ThrottledError
	if !errors.As(err, &te) || te.Level != priority.SheddablePlus || te.Probability != throttleMax {
		t.Fatalf("RoundTrip error = %#v, want a *ThrottledError of level sheddable_plus, probability %v", err, throttleMax)
	}
	if !strings.Contains(err.Error(), "sheddable_plus") {
		t.Errorf("Error() = %q, want the level named", err)
	}
	if n := base.count(); n != throttleMin {
		t.Errorf("attempts = %d, want %d: the throttled request was sent", n, throttleMin)
	}
	if !body.closed.Load() {
		t.Error("the throttled request's body was not closed")
	}
}

// TestThrottleOff: with ThrottleK -1 nothing is refused locally.
func TestThrottleOff(t *testing.T) {
	base := &fakeBase{script: []outcome{{status: 503}}}
	tr := fixedRandom(&Transport{Base: base, MaxAttempts: 1, ThrottleK: -1}, 0)
	for range 100 {
		req, _ := http.NewRequest("GET", "http://example.com/", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if st := tr.Stats(); st.Throttled != 0 || st.Throttle != [priority.NumLevels]float64{} {
		t.Errorf("Stats = %+v, want nothing throttled", st)
	}
}

// TestThrottleAdapts runs a client at 10 requests a second, on synctest's
// clock, against a server that serves for 30 s, refuses everything for
// 60 s, then serves again: the throttle starts refusing locally within
// about half its window of the outage, sends at most a little over the
// cap's tenth during it, and stops refusing within a bounded time of
// the recovery.
func TestThrottleAdapts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		down, up := start.Add(30*time.Second), start.Add(90*time.Second)
		base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			status := 200
			if now := time.Now(); !now.Before(down) && now.Before(up) {
				status = 503
			}
			return &http.Response{StatusCode: status, Body: http.NoBody, Header: http.Header{}}, nil
		})
		tr := &Transport{Base: base, MaxAttempts: 1}
		tr.load().random = rand.New(rand.NewPCG(1, 2)).Float64
		var firstThrottled, lastThrottled time.Time
		var sentDown, wantedDown int
		for now := start; now.Before(start.Add(4 * time.Minute)); now = time.Now() {
			req, _ := http.NewRequest("GET", "http://example.com/", nil)
			_, err := tr.RoundTrip(req)
			throttled := errors.As(err, new(*ThrottledError))
			if throttled {
				if firstThrottled.IsZero() {
					firstThrottled = now
				}
				lastThrottled = now
			}
			if !now.Before(down.Add(30*time.Second)) && now.Before(up) {
				wantedDown++
				if !throttled {
					sentDown++
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("first local refusal %v after the outage began, last %v after it ended; sent %d of %d during the outage's second half",
			firstThrottled.Sub(down), lastThrottled.Sub(up), sentDown, wantedDown)
		if firstThrottled.Before(down) || firstThrottled.After(down.Add(17*time.Second)) {
			t.Errorf("first local refusal at %v into the outage, want within 15-17 s", firstThrottled.Sub(down))
		}
		if float64(sentDown) > 0.15*float64(wantedDown) {
			t.Errorf("sent %d of %d requests in a full outage, want at most about 10%%", sentDown, wantedDown)
		}
		if lastThrottled.After(up.Add(2 * throttleSpan)) {
			t.Errorf("last local refusal %v after the recovery, want within %v", lastThrottled.Sub(up), 2*throttleSpan)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestThrottleRetry: a retry refused locally is not sent, and the
// refusal that came before it is returned as it came.
func TestThrottleRetry(t *testing.T) {
	base := &fakeBase{script: []outcome{{status: 503, retryAfter: "0"}}}
	tr := fixedRandom(&Transport{Base: base, MaxAttempts: 1}, 0.95) // above the cap: never throttled
	for range 20 {
		req, _ := http.NewRequest("GET", "http://example.com/", nil)
		resp, _ := tr.RoundTrip(req)
		resp.Body.Close()
	}
	tr.load().maxAttempts = 3
	rolls := []float64{0.95, 0.5, 0} // admit the first attempt, the wait's jitter, refuse the retry
	tr.load().random = func() float64 { r := rolls[0]; rolls = rolls[1:]; return r }
	req, _ := http.NewRequest("GET", "http://example.com/", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != 503 {
		t.Fatalf("RoundTrip = %v, %v; want the 503", resp, err)
	}
	if b := base.resps[len(base.resps)-1]; b.closed.Load() {
		t.Error("the refusal returned was closed")
	}
	if st := tr.Stats(); st.Throttled != 1 || st.Retries != 0 || st.Attempts != 21 {
		t.Errorf("Stats = %+v, want 1 throttled, 0 retries, 21 attempts", st)
	}
}
