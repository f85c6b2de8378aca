package typed

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
)

var (
	errBodyTooLarge = errors.New("typed: request body over the frame limit")
	errStatus       = errors.New("typed: upstream status outside 200-599")
	errExtraBytes   = errors.New("typed: upstream sent bytes after its response")
)

// aLongTimeAgo is a deadline in the past: setting it interrupts any read
// or write in progress.
var aLongTimeAgo = time.Unix(1, 0)

// ServeHTTP forwards r to the upstream and writes its answer to w.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	ctx := r.Context()
	deadline := time.Now().Add(f.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}

	req := frame.Request{
		Version:     f.version(r),
		URL:         r.RequestURI,
		Method:      r.Method,
		Host:        r.Host,
		RemoteAddr:  r.RemoteAddr,
		ContentType: first(r.Header, "Content-Type"),
		Accept:      first(r.Header, "Accept"),
		RequestID:   first(r.Header, "X-Request-Id"),
	}
	if req.URL == "" { // a request built in-process rather than read from a client
		req.URL = r.URL.RequestURI()
	}
	for _, name := range f.headers {
		for _, v := range r.Header[name] {
			req.Header = append(req.Header, frame.Header{Name: name, Value: v})
		}
	}
	if !req.Valid() {
		f.refuse(w, http.StatusBadRequest)
		return
	}

	if r.Body != nil && r.Body != http.NoBody {
		bb := f.bufs.Get()
		defer f.bufs.Put(bb)
		body, err := readBody(r.Body, (*bb)[:0], r.ContentLength, f.maxFrame)
		*bb = body
		var mbe *http.MaxBytesError
		switch {
		case errors.Is(err, errBodyTooLarge) || errors.As(err, &mbe):
			f.refuse(w, http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			f.refuse(w, http.StatusBadRequest)
			return
		}
		req.Body = body
	}

	out := f.bufs.Get()
	defer f.bufs.Put(out)
	fr := req.Append(frame.Begin((*out)[:0]))
	*out = fr
	if frame.End(fr, f.maxFrame) != nil {
		f.refuse(w, http.StatusRequestEntityTooLarge)
		return
	}

	in := f.bufs.Get()
	defer f.bufs.Put(in)
	var resp frame.Response
	if err := f.roundTrip(ctx, fr, in, &resp, deadline, idempotent(r.Method)); err != nil {
		f.fail(w, ctx, err)
		return
	}
	f.forwarded.Add(1)
	h := w.Header()
	if resp.ContentType != "" {
		h["Content-Type"] = []string{resp.ContentType}
	} else {
		h["Content-Type"] = nil // no sniffing: the upstream said nothing
	}
	if bodyAllowed(int(resp.Status)) {
		h["Content-Length"] = []string{strconv.Itoa(len(resp.Body))}
	}
	w.WriteHeader(int(resp.Status))
	if len(resp.Body) > 0 && bodyAllowed(int(resp.Status)) {
		w.Write(resp.Body) // resp.Body lives in *in until the deferred Put
	}
}

// roundTrip sends the request frame fr and reads the response into resp,
// retrying an idempotent request whose reused connection turned out stale.
func (f *Front) roundTrip(ctx context.Context, fr []byte, in *[]byte, resp *frame.Response, deadline time.Time, idem bool) error {
	for attempt := 0; ; attempt++ {
		c, err := f.pool.get(ctx, deadline)
		if err != nil {
			return err
		}
		reusable, err := f.exchange(ctx, c, fr, in, resp, deadline)
		if reusable {
			f.pool.put(c)
		} else {
			f.pool.drop(c)
		}
		if err == nil || !c.reused || !idem || !stale(err) || ctx.Err() != nil || attempt >= cap(f.pool.sem) {
			return err
		}
		f.retries.Add(1)
	}
}

// exchange runs one request/response on c. It reports whether c is fit
// for reuse: only after a clean exchange that nobody interrupted.
func (f *Front) exchange(ctx context.Context, c *conn, fr []byte, in *[]byte, resp *frame.Response, deadline time.Time) (reusable bool, err error) {
	c.SetDeadline(deadline)
	// A client that goes away cuts the exchange short instead of leaving
	// the connection busy until the deadline.
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(aLongTimeAgo) })
	if _, err = c.Write(fr); err == nil {
		var p []byte
		p, err = frame.Read(c.br, (*in)[:0], f.maxFrame)
		*in = p
		if err == nil {
			err = resp.Unmarshal(p)
		}
		if err == nil && (resp.Status < 200 || resp.Status > 599) {
			err = errStatus
		}
		if err == nil && c.br.Buffered() > 0 {
			err = errExtraBytes // out of step with the upstream: not reusable
		}
	}
	if !stop() {
		// The deadline was cut (or is being cut) under us: whatever the
		// outcome, the connection's state is unknown.
		return false, err
	}
	return err == nil, err
}

// fail answers a request the upstream did not answer.
func (f *Front) fail(w http.ResponseWriter, ctx context.Context, err error) {
	if ctx.Err() == context.Canceled {
		f.canceled.Add(1) // nobody is listening; answer anyway, cheaply
		writeFixed(w, http.StatusBadGateway)
		return
	}
	var ne net.Error
	if errors.Is(err, errPoolWait) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		f.gatewayTimeout.Add(1)
		writeFixed(w, http.StatusGatewayTimeout)
		return
	}
	f.badGateway.Add(1)
	writeFixed(w, http.StatusBadGateway)
}

func (f *Front) refuse(w http.ResponseWriter, status int) {
	f.rejected.Add(1)
	writeFixed(w, status)
}

// Fixed answers, formatted once.
var fixedBodies = map[int][]byte{
	http.StatusBadRequest:            []byte("400 bad request\n"),
	http.StatusRequestEntityTooLarge: []byte("413 request too large\n"),
	http.StatusBadGateway:            []byte("502 bad gateway\n"),
	http.StatusGatewayTimeout:        []byte("504 gateway timeout\n"),
}

func writeFixed(w http.ResponseWriter, status int) {
	body := fixedBodies[status]
	h := w.Header()
	h["Content-Type"] = []string{"text/plain; charset=utf-8"}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	w.Write(body)
}

// stale reports whether err is what a connection closed by the upstream
// while idle produces: end of stream or reset before any response byte.
func stale(err error) bool {
	return err == io.EOF || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

func bodyAllowed(status int) bool {
	return status != http.StatusNoContent && status != http.StatusNotModified
}

func first(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// readBody appends all of r to b, failing with errBodyTooLarge past limit
// bytes. A declared length, when it fits, sizes the buffer at once.
func readBody(r io.Reader, b []byte, declared int64, limit int) ([]byte, error) {
	if declared > int64(limit) {
		return b, errBodyTooLarge
	}
	if declared > 0 {
		b = slices.Grow(b, int(declared)+1)
	}
	for {
		if len(b) == cap(b) {
			b = slices.Grow(b, min(max(len(b), 512), limit+1-len(b)))
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if len(b) > limit {
			return b[:0], errBodyTooLarge
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b[:0], err
		}
	}
}
