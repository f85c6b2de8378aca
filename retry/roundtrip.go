package retry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/frontdoor-go/frontdoor/priority"
)

// RoundTrip implements http.RoundTripper. It sends req through Base and,
// if the attempt is refused (503 or 429) or fails with a transient error,
// sends it again as the package documentation says, at most MaxAttempts
// times in all. It returns the outcome of the last attempt: the response
// of a refusal that is not retried is returned as it came, body unread.
// A request refused locally by the throttle is not sent: RoundTrip closes
// its body and returns a *ThrottledError.
//
// req itself is never modified: Base gets req, or a copy with the headers
// the Transport adds and, from the second attempt on, a body from
// req.GetBody. The response's Request is req.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	s := t.load()
	s.requests.Add(1)
	ctx := req.Context()
	level, _ := priority.FromContext(ctx)
	now := time.Now()
	if p, ok := s.throttle.admit(level, now, s.random()); !ok {
		s.throttled.Add(1)
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &ThrottledError{Level: level, Probability: p}
	}
	s.budget.deposit(now)
	for n := 1; ; n++ {
		resp, err := s.send(req, n)
		wait, ok := t.again(s, req, n, level, resp, err)
		if !ok {
			return resp, err
		}
		discard(resp)
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// send sends attempt n of req through Base and counts its outcome.
func (s *state) send(req *http.Request, n int) (*http.Response, error) {
	r, err := attempt(req, n)
	if err != nil {
		return nil, err
	}
	s.attempts.Add(1)
	if n > 1 {
		s.retries.Add(1)
	}
	resp, err := s.base.RoundTrip(r)
	switch {
	case err != nil:
		s.errors.Add(1)
		// An attempt that the caller gave up on says nothing about the
		// server; one that ran out of time (a deadline) does.
		if !errors.Is(req.Context().Err(), context.Canceled) {
			s.throttle.done(time.Now(), false)
		}
	case refusal(resp):
		s.refusals.Add(1)
		s.throttle.done(time.Now(), false)
	default:
		s.throttle.done(time.Now(), true)
	}
	if resp != nil && r != req {
		resp.Request = req
	}
	return resp, err
}

// again decides whether attempt n, which ended with (resp, err), is
// followed by another, and after what wait. Each check that says no,
// once the outcome is worth a retry, is counted under its own reason; the
// budget comes last, since asking it spends a retry.
func (t *Transport) again(s *state, req *http.Request, n int, level priority.Level, resp *http.Response, err error) (time.Duration, bool) {
	ctx := req.Context()
	if n >= s.maxAttempts || ctx.Err() != nil || !retryable(resp, err) {
		return 0, false
	}
	if !t.safe(req, err) {
		s.unsafe.Add(1)
		return 0, false
	}
	answered := resp
	if err != nil {
		answered = nil
	}
	now := time.Now()
	wait, ok := s.wait(ctx, n, answered, now, s.random())
	if !ok {
		s.tooLong.Add(1)
		return 0, false
	}
	if _, ok := s.throttle.admit(level, now, s.random()); !ok {
		s.throttled.Add(1)
		return 0, false
	}
	if !s.budget.withdraw(now) {
		s.overBudget.Add(1)
		return 0, false
	}
	return wait, true
}

// attempt returns the request to pass to Base as attempt n of req: req
// itself for a first attempt that needs no header of ours, otherwise a
// copy with its own header map, that carries the level of its context
// (as priority.Transport sends it) if req has no such header, and on a
// retry the attempt number and a fresh body.
func attempt(req *http.Request, n int) (*http.Request, error) {
	level, ok := priority.FromContext(req.Context())
	setLevel := ok && len(req.Header[priority.DefaultHeader]) == 0
	if n == 1 && !setLevel {
		return req, nil
	}
	r := req.WithContext(req.Context()) // a shallow copy
	r.Header = req.Header.Clone()
	if r.Header == nil {
		r.Header = make(http.Header, 2)
	}
	if setLevel {
		r.Header[priority.DefaultHeader] = []string{level.String()}
	}
	if n > 1 {
		r.Header[AttemptHeader] = []string{strconv.Itoa(n)}
		if req.Body != nil && req.Body != http.NoBody {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
	}
	return r, nil
}

// discardLimit is the most of a discarded response's body read before it
// is closed: enough for a refusal's short body, so that its connection
// can be reused, and no more.
const discardLimit = 4 << 10

// discard reads a little of resp's body and closes it.
func discard(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	io.CopyN(io.Discard, resp.Body, discardLimit)
	resp.Body.Close()
}
