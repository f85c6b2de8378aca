package retry

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"0", 0, true},
		{"1", time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"007", 7 * time.Second, true},
		{"86400", 24 * time.Hour, true},
		{"86401", 24 * time.Hour, true},
		{"99999999999999999999999", 24 * time.Hour, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{now.Add(30 * 24 * time.Hour).Format(http.TimeFormat), 24 * time.Hour, true},
		{"Sunday, 01-Jun-25 12:00:05 GMT", 5 * time.Second, true}, // RFC 850
		{"Sun Jun  1 12:00:05 2025", 5 * time.Second, true},       // ANSI C
		{"", 0, false},
		{"-1", 0, false},
		{"+5", 0, false},
		{"1.5", 0, false},
		{"5s", 0, false},
		{"soon", 0, false},
		{"Sun, 01 Jun 2025 12:00:05", 0, false},
	} {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

// FuzzParseRetryAfter: any header value parses without panic to a delay
// between 0 and a day, and a number of seconds up to a day reads back as
// itself.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "1", "86400", "99999999999999999999", "-1", "Sun, 01 Jun 2025 12:00:05 GMT", "", "\xff", " 3 "} {
		f.Add(s)
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseRetryAfter(s, now)
		if d < 0 || d > 24*time.Hour || (!ok && d != 0) {
			t.Fatalf("parseRetryAfter(%q) = %v, %v", s, d, ok)
		}
		if n, err := strconv.ParseUint(s, 10, 64); err == nil && n <= 86400 {
			if !ok || d != time.Duration(n)*time.Second {
				t.Fatalf("parseRetryAfter(%q) = %v, %v; want %ds", s, d, ok, n)
			}
		}
	})
}

type span struct{ lo, hi time.Duration }

// waitCases are the refusals of TestWaits, and the waits they lead to.
var waitCases = []struct {
	name        string
	retryAfter  string // "date+N": an HTTP-date N seconds ahead
	deadline    time.Duration
	maxWait     time.Duration
	want        []span // the wait before each retry
	wantTooLong bool   // the last refusal came back at once, counted TooLong
}{
	{name: "seconds", retryAfter: "2", want: []span{{2 * time.Second, 3 * time.Second}, {2 * time.Second, 3 * time.Second}}},
	// The same date, passed by the second refusal, asks for no wait.
	{name: "date", retryAfter: "date+4", want: []span{{4 * time.Second, 6 * time.Second}, {0, 100 * time.Millisecond}}},
	{name: "zero spreads by a backoff", retryAfter: "0", want: []span{{0, 100 * time.Millisecond}, {0, 100 * time.Millisecond}}},
	{name: "no Retry-After: backoff", want: []span{{50 * time.Millisecond, 100 * time.Millisecond}, {100 * time.Millisecond, 200 * time.Millisecond}}},
	{name: "backoff capped by MaxWait", maxWait: 120 * time.Millisecond, want: []span{{50 * time.Millisecond, 100 * time.Millisecond}, {60 * time.Millisecond, 120 * time.Millisecond}}},
	{name: "cut to the deadline", retryAfter: "1", deadline: 1200 * time.Millisecond, want: []span{{time.Second, 1200 * time.Millisecond}}, wantTooLong: true},
	{name: "beyond the deadline", retryAfter: "5", deadline: 4 * time.Second, wantTooLong: true},
	{name: "beyond MaxWait", retryAfter: "11", wantTooLong: true},
	{name: "a day", retryAfter: "99999999999", deadline: time.Hour, wantTooLong: true},
}

// TestWaits: how long each retry waits, on synctest's clock: a
// Retry-After in full plus at most half of it, in seconds or as a date;
// without one a backoff doubling from Backoff; never past MaxWait or the
// deadline, and a Retry-After beyond either returns the refusal at once.
func TestWaits(t *testing.T) {
	for _, tt := range waitCases {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				base := &fakeBase{script: []outcome{{status: 503, retryAfter: retryAfterValue(tt.retryAfter)}}}
				tr := &Transport{Base: base, MaxWait: tt.maxWait}
				ctx := context.Background()
				if tt.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.deadline)
					defer cancel()
				}
				req, _ := http.NewRequestWithContext(ctx, "GET", "http://example.com/", nil)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatalf("RoundTrip: %v", err)
				}
				resp.Body.Close()
				if got := len(base.at) - 1; got != len(tt.want) {
					t.Fatalf("retries = %d, want %d", got, len(tt.want))
				}
				for i, w := range tt.want {
					if d := base.at[i+1].Sub(base.at[i]); d < w.lo || d > w.hi {
						t.Errorf("wait before retry %d = %v, want in [%v, %v]", i+1, d, w.lo, w.hi)
					}
				}
				var wantTooLong uint64
				if tt.wantTooLong {
					wantTooLong = 1
				}
				if got := tr.Stats().TooLong; got != wantTooLong {
					t.Errorf("Stats.TooLong = %d, want %d", got, wantTooLong)
				}
			})
		})
	}
}

// retryAfterValue returns v, or for "date+N" an HTTP-date N seconds
// ahead, after waiting for a whole second (HTTP-dates have no fraction).
func retryAfterValue(v string) string {
	n, ok := strings.CutPrefix(v, "date+")
	if !ok {
		return v
	}
	secs, _ := strconv.Atoi(n)
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	return time.Now().Add(time.Duration(secs) * time.Second).UTC().Format(http.TimeFormat)
}

// TestWaitCanceled: a caller that cancels during a wait gets its error at
// once, and the refusal's body has been closed.
func TestWaitCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := &fakeBase{script: []outcome{{status: 503, retryAfter: "5"}}}
		tr := &Transport{Base: base}
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://example.com/", nil)
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		_, err := tr.RoundTrip(req)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("RoundTrip error = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("RoundTrip returned after %v, want 1s", d)
		}
		if base.count() != 1 || !base.resps[0].closed.Load() {
			t.Errorf("attempts %d, refusal closed %v; want 1, true", base.count(), base.resps[0].closed.Load())
		}
	})
}
