package retry

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// outcome is what the fake base answers an attempt: a status (with an
// optional Retry-After) or an error.
type outcome struct {
	status     int
	retryAfter string
	err        error
}

// fakeBase answers attempts from a script, the last entry repeated, and
// records what it was sent.
type fakeBase struct {
	script []outcome

	mu     sync.Mutex
	sent   []*http.Request
	bodies []string    // what each attempt's body held
	at     []time.Time // when each attempt was sent
	resps  []*body     // the body of each response
}

func (f *fakeBase) RoundTrip(r *http.Request) (*http.Response, error) {
	var b string
	if r.Body != nil {
		all, _ := io.ReadAll(r.Body)
		r.Body.Close()
		b = string(all)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.script[min(len(f.sent), len(f.script)-1)]
	f.sent = append(f.sent, r)
	f.bodies = append(f.bodies, b)
	f.at = append(f.at, time.Now())
	if o.err != nil {
		return nil, o.err
	}
	rb := &body{r: strings.NewReader(http.StatusText(o.status))}
	f.resps = append(f.resps, rb)
	resp := &http.Response{StatusCode: o.status, Header: http.Header{}, Body: rb, Request: r}
	if o.retryAfter != "" {
		resp.Header.Set("Retry-After", o.retryAfter)
	}
	return resp, nil
}

func (f *fakeBase) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sent)
}

// body is a response body that records whether it was read to its end
// and closed.
type body struct {
	r      *strings.Reader
	closed atomic.Bool
}

func (b *body) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *body) Close() error               { b.closed.Store(true); return nil }
func (b *body) drained() bool              { return b.r.Len() == 0 }

// reqBody is a request body that records whether it was closed.
type reqBody struct {
	io.Reader
	closed atomic.Bool
}

func (b *reqBody) Close() error { b.closed.Store(true); return nil }

// fixedRandom makes t's random numbers r, and returns t.
func fixedRandom(t *Transport, r float64) *Transport {
	t.load().random = func() float64 { return r }
	return t
}
