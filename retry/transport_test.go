package retry

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
)

var (
	errDial  = &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	errReset = &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	errDNS   = &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}}
	errCert  = x509.UnknownAuthorityError{}
)

var (
	served     = outcome{status: 200}
	refusedNow = outcome{status: 503, retryAfter: "0"}
	tooMany    = outcome{status: 429}
	failed     = outcome{status: 500}
)

// retriedCases are the requests and outcomes of TestWhatIsRetried.
var retriedCases = []struct {
	name       string
	method     string
	body       string // "": none; "replay": GetBody set; "once": a reader without GetBody
	header     string // a header set on the request
	idempotent func(*http.Request) bool
	script     []outcome
	want       int // attempts
	wantStatus int // 0: an error
	wantUnsafe uint64
}{
	{name: "GET refused then served", method: "GET", script: []outcome{refusedNow, served}, want: 2, wantStatus: 200},
	{name: "GET 429 then served", method: "GET", script: []outcome{tooMany, served}, want: 2, wantStatus: 200},
	{name: "GET refused every time", method: "GET", script: []outcome{refusedNow}, want: 3, wantStatus: 503},
	{name: "GET 500 is an answer", method: "GET", script: []outcome{failed, served}, want: 1, wantStatus: 500},
	{name: "GET 502 is an answer", method: "GET", script: []outcome{{status: 502}, served}, want: 1, wantStatus: 502},
	{name: "empty method is GET", method: "", script: []outcome{refusedNow, served}, want: 2, wantStatus: 200},
	{name: "HEAD", method: "HEAD", script: []outcome{refusedNow, served}, want: 2, wantStatus: 200},
	{name: "DELETE", method: "DELETE", script: []outcome{refusedNow, served}, want: 2, wantStatus: 200},
	{name: "PUT with a replayable body", method: "PUT", body: "replay", script: []outcome{refusedNow, served}, want: 2, wantStatus: 200},
	{name: "PUT with a body read once", method: "PUT", body: "once", script: []outcome{refusedNow, served}, want: 1, wantStatus: 503, wantUnsafe: 1},
	{name: "POST refused", method: "POST", body: "replay", script: []outcome{refusedNow, served}, want: 1, wantStatus: 503, wantUnsafe: 1},
	{name: "PATCH refused", method: "PATCH", script: []outcome{refusedNow, served}, want: 1, wantStatus: 503, wantUnsafe: 1},
	{name: "POST with Idempotency-Key", method: "POST", body: "replay", header: "Idempotency-Key", script: []outcome{refusedNow, served}, want: 2, wantStatus: 200},
	{name: "POST with X-Idempotency-Key", method: "POST", header: "X-Idempotency-Key", script: []outcome{refusedNow, served}, want: 2, wantStatus: 200},
	{name: "POST marked by the predicate", method: "POST", body: "replay", idempotent: func(r *http.Request) bool { return r.URL.Path == "/render" }, script: []outcome{refusedNow, served}, want: 2, wantStatus: 200},
	{name: "POST dial error", method: "POST", body: "replay", script: []outcome{{err: errDial}, served}, want: 2, wantStatus: 200},
	{name: "POST dial error, body read once", method: "POST", body: "once", script: []outcome{{err: errDial}, served}, want: 1, wantUnsafe: 1},
	{name: "POST connection reset", method: "POST", body: "replay", script: []outcome{{err: errReset}, served}, want: 1, wantUnsafe: 1},
	{name: "GET connection reset", method: "GET", script: []outcome{{err: errReset}, served}, want: 2, wantStatus: 200},
	{name: "GET EOF", method: "GET", script: []outcome{{err: io.EOF}, served}, want: 2, wantStatus: 200},
	{name: "GET unexpected EOF", method: "GET", script: []outcome{{err: io.ErrUnexpectedEOF}, served}, want: 2, wantStatus: 200},
	{name: "GET unknown host", method: "GET", script: []outcome{{err: errDNS}, served}, want: 1},
	{name: "GET bad certificate", method: "GET", script: []outcome{{err: errCert}, served}, want: 1},
	{name: "GET other error", method: "GET", script: []outcome{{err: errors.New("unsupported protocol scheme")}, served}, want: 1},
}

// TestWhatIsRetried: which outcomes of which requests are sent again, and
// which reason counts a retry not made.
func TestWhatIsRetried(t *testing.T) {
	for _, tt := range retriedCases {
		t.Run(tt.name, func(t *testing.T) {
			base := &fakeBase{script: tt.script}
			tr := &Transport{Base: base, Backoff: time.Microsecond, Idempotent: tt.idempotent}
			req, _ := http.NewRequest(tt.method, "http://example.com/render", nil)
			switch tt.body {
			case "replay":
				req, _ = http.NewRequest(tt.method, "http://example.com/render", strings.NewReader("payload"))
			case "once":
				req.Body = io.NopCloser(strings.NewReader("payload"))
			}
			if tt.header != "" {
				req.Header.Set(tt.header, "k-1")
			}
			resp, err := tr.RoundTrip(req)
			if got := base.count(); got != tt.want {
				t.Errorf("attempts = %d, want %d", got, tt.want)
			}
			checkOutcome(t, resp, err, tt.wantStatus)
			if tt.body == "replay" {
				for i, b := range base.bodies {
					if b != "payload" {
						t.Errorf("attempt %d sent body %q, want %q", i+1, b, "payload")
					}
				}
			}
			st := tr.Stats()
			if st.Unsafe != tt.wantUnsafe {
				t.Errorf("Stats.Unsafe = %d, want %d", st.Unsafe, tt.wantUnsafe)
			}
			if st.Attempts != uint64(tt.want) || st.Retries != uint64(tt.want-1) || st.Requests != 1 {
				t.Errorf("Stats = %+v, want %d attempts, %d retries, 1 request", st, tt.want, tt.want-1)
			}
		})
	}
}

// checkOutcome checks that RoundTrip returned wantStatus (0: an error),
// with its body whole.
func checkOutcome(t *testing.T, resp *http.Response, err error, wantStatus int) {
	t.Helper()
	switch {
	case wantStatus == 0 && err == nil:
		t.Errorf("RoundTrip = %d, want an error", resp.StatusCode)
	case wantStatus != 0 && err != nil:
		t.Errorf("RoundTrip error %v, want status %d", err, wantStatus)
	case err == nil && resp.StatusCode != wantStatus:
		t.Errorf("status = %d, want %d", resp.StatusCode, wantStatus)
	}
	if err == nil {
		if b, _ := io.ReadAll(resp.Body); string(b) != http.StatusText(resp.StatusCode) {
			t.Errorf("body of the returned response = %q, want it whole", b)
		}
		resp.Body.Close()
	}
}

// TestAttempts: each attempt is a request of its own; the caller's is
// left as it was; the attempt number is sent on retries only; every
// discarded response is drained and closed, the returned one is not.
func TestAttempts(t *testing.T) {
	base := &fakeBase{script: []outcome{{status: 503, retryAfter: "0"}, {status: 429}, {status: 200}}}
	tr := &Transport{Base: base, Backoff: time.Microsecond}
	req, _ := http.NewRequest("PUT", "http://example.com/x", strings.NewReader("payload"))
	req.Header.Set("X-Caller", "kept")
	before := req.Header.Clone()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Request != req {
		t.Errorf("resp.Request = %p, want the caller's request %p", resp.Request, req)
	}
	if len(req.Header) != len(before) || req.Header.Get("X-Caller") != "kept" || req.Header.Get(AttemptHeader) != "" {
		t.Errorf("caller's header became %v, was %v", req.Header, before)
	}
	want := []string{"", "2", "3"}
	if len(base.sent) != len(want) {
		t.Fatalf("attempts = %d, want %d", len(base.sent), len(want))
	}
	for i, r := range base.sent {
		if got := r.Header.Get(AttemptHeader); got != want[i] {
			t.Errorf("attempt %d: %s = %q, want %q", i+1, AttemptHeader, got, want[i])
		}
		if r.Header.Get("X-Caller") != "kept" {
			t.Errorf("attempt %d lost the caller's header", i+1)
		}
		if i > 0 && r == req {
			t.Errorf("attempt %d is the caller's request", i+1)
		}
		if base.bodies[i] != "payload" {
			t.Errorf("attempt %d sent body %q", i+1, base.bodies[i])
		}
	}
	for i, b := range base.resps[:2] {
		if !b.closed.Load() || !b.drained() {
			t.Errorf("discarded response %d: closed %v, drained %v; want both", i+1, b.closed.Load(), b.drained())
		}
	}
	if base.resps[2].closed.Load() {
		t.Error("the returned response was closed")
	}
}

// TestGetBodyError: a retry whose body cannot be had again returns the
// error of GetBody.
func TestGetBodyError(t *testing.T) {
	base := &fakeBase{script: []outcome{{status: 503, retryAfter: "0"}, {status: 200}}}
	tr := &Transport{Base: base, Backoff: time.Microsecond}
	req, _ := http.NewRequest("PUT", "http://example.com/x", strings.NewReader("payload"))
	boom := errors.New("boom")
	req.GetBody = func() (io.ReadCloser, error) { return nil, boom }
	if _, err := tr.RoundTrip(req); !errors.Is(err, boom) {
		t.Errorf("RoundTrip error = %v, want %v", err, boom)
	}
	if n := base.count(); n != 1 {
		t.Errorf("attempts = %d, want 1", n)
	}
}

func TestMaxAttemptsOne(t *testing.T) {
	base := &fakeBase{script: []outcome{{status: 503, retryAfter: "0"}, {status: 200}}}
	tr := &Transport{Base: base, MaxAttempts: 1}
	req, _ := http.NewRequest("GET", "http://example.com/", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != 503 || base.count() != 1 {
		t.Errorf("RoundTrip = %v, %v after %d attempts; want 503 after 1", resp, err, base.count())
	}
	resp.Body.Close()
}

func TestZeroValue(t *testing.T) {
	var tr Transport
	s := tr.load()
	if s.base != http.DefaultTransport || s.maxAttempts != DefaultMaxAttempts ||
		s.backoff != DefaultBackoff || s.maxWait != DefaultMaxWait || s.throttle == nil {
		t.Errorf("zero Transport: %+v, want the defaults", s)
	}
	if got, want := tr.Stats().Budget, float64(DefaultBudgetMinRate)*budgetSpan.Seconds(); got != want {
		t.Errorf("Stats().Budget = %v, want %v", got, want)
	}
}

func TestInvalidFields(t *testing.T) {
	for _, tr := range []*Transport{
		{MaxAttempts: -1},
		{Backoff: -1},
		{MaxWait: -time.Second},
		{BudgetRatio: -0.5},
		{BudgetMinRate: -2},
		{BudgetRatio: math.NaN()},
		{ThrottleK: math.NaN()},
		{ThrottleK: 0.5},
		{ThrottleK: -2},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "retry: ") {
					t.Errorf("%+v: recovered %v, want a panic starting with \"retry: \"", tr, r)
				}
			}()
			tr.Stats()
		}()
	}
}

type closer struct {
	fakeBase
	closed int
}

func (c *closer) CloseIdleConnections() { c.closed++ }

func TestCloseIdleConnections(t *testing.T) {
	c := &closer{}
	(&Transport{Base: c}).CloseIdleConnections()
	if c.closed != 1 {
		t.Errorf("Base.CloseIdleConnections called %d times, want 1", c.closed)
	}
	(&Transport{Base: &fakeBase{}}).CloseIdleConnections() // a Base without it: no panic
}

// TestAttemptLevel: the level of the request's context is sent in
// priority.DefaultHeader on every attempt, on copies: the caller's
// request, even with a nil Header, is left as it was, and a level the
// caller wrote in the header itself is kept.
func TestAttemptLevel(t *testing.T) {
	for _, tt := range []struct {
		name, preset, want string
		nilHeader          bool
	}{
		{name: "from the context", want: "sheddable"},
		{name: "nil header", nilHeader: true, want: "sheddable"},
		{name: "the caller's own", preset: "critical_plus", want: "critical_plus"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := &fakeBase{script: []outcome{{status: 503, retryAfter: "0"}, {status: 200}}}
			tr := &Transport{Base: base, Backoff: time.Microsecond}
			ctx := priority.WithLevel(context.Background(), priority.Sheddable)
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://example.com/", nil)
			if tt.preset != "" {
				req.Header.Set(priority.DefaultHeader, tt.preset)
			}
			if tt.nilHeader {
				req.Header = nil
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			for i, r := range base.sent {
				if got := r.Header.Get(priority.DefaultHeader); got != tt.want {
					t.Errorf("attempt %d: %s = %q, want %q", i+1, priority.DefaultHeader, got, tt.want)
				}
			}
			if got := req.Header.Get(priority.DefaultHeader); got != tt.preset || (tt.nilHeader && req.Header != nil) {
				t.Errorf("caller's header became %v", req.Header)
			}
		})
	}
}

// TestWaitJitter: the wait spreads over its whole span with the random
// number, from the Retry-After (never less) to half as much again.
func TestWaitJitter(t *testing.T) {
	s := (&Transport{}).load()
	resp := &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {"4"}}}
	now := time.Now()
	for _, tt := range []struct {
		roll float64
		want time.Duration
	}{
		{0, 4 * time.Second},
		{0.5, 5 * time.Second},
		{0.999, 5998 * time.Millisecond},
	} {
		if got, ok := s.wait(context.Background(), 1, resp, now, tt.roll); !ok || got != tt.want {
			t.Errorf("wait(roll %v) = %v, %v; want %v", tt.roll, got, ok, tt.want)
		}
	}
}
