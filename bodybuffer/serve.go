package bodybuffer

import (
	"errors"
	"net/http"
)

// serve is the whole middleware: pass through, refuse on the declared
// length, read, classify a failure, or run next on the buffered body.
func (b *Buffer) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if noBody(r) {
		next.ServeHTTP(w, r)
		return
	}
	if b.passThrough(r) {
		b.c.passed.Add(1)
		next.ServeHTTP(w, r)
		return
	}
	// Refuse on the declared length before the first Read: for
	// "Expect: 100-continue" that first Read is what sends 100 Continue.
	if b.maxBytes >= 0 && r.ContentLength > b.maxBytes {
		b.c.tooLarge.Add(1)
		b.refuse(w, r, http.StatusRequestEntityTooLarge, b.tooLarge, nil)
		return
	}

	s := getBody()
	defer b.release(s)

	b.c.reading.Add(1)
	err := b.fill(w, r, s)
	b.c.reading.Add(-1)
	b.c.bytes.Add(uint64(s.n))
	if err == nil && r.Context().Err() != nil {
		// EOF reached, but the client left meanwhile (for HTTP/1 the
		// server's background read has seen the connection close).
		err = errClientGone
	}
	if err != nil {
		b.fail(w, r, err)
		return
	}

	b.c.buffered.Add(1)
	b.c.sizes.observe(s.n)
	if s.file != nil {
		b.c.spilled.Add(1)
	}

	// Hand next the same request with the body swapped in place, and put
	// the fields back afterwards (also on panic). A copy (r.WithContext or
	// *r2 = *r) would cost one allocation of an http.Request per request.
	body, cl, te, gb := r.Body, r.ContentLength, r.TransferEncoding, r.GetBody
	defer func() {
		r.Body, r.ContentLength, r.TransferEncoding, r.GetBody = body, cl, te, gb
	}()
	r.Body, r.ContentLength, r.TransferEncoding, r.GetBody = s, s.n, nil, s.getBody
	next.ServeHTTP(w, r)
}

// fail classifies a read error, counts it and answers it.
func (b *Buffer) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch class := classify(r, err); class {
	case errTooLarge:
		b.c.tooLarge.Add(1)
		b.refuse(w, r, http.StatusRequestEntityTooLarge, b.tooLarge, nil)
	case ErrTimeout:
		b.c.timedOut.Add(1)
		b.refuse(w, r, http.StatusRequestTimeout, class, err)
	case ErrClientGone:
		// Nobody is listening: count it and abort the response, so that
		// net/http writes nothing either (returning would make it send an
		// implicit 200 to a half-closed client) and closes the connection
		// or resets the stream, without logging.
		b.c.clientGone.Add(1)
		panic(http.ErrAbortHandler)
	case ErrSpool:
		b.c.spoolErrors.Add(1)
		b.refuse(w, r, http.StatusInternalServerError, class, err)
	default:
		b.c.truncated.Add(1)
		b.refuse(w, r, http.StatusBadRequest, class, err)
	}
}

// wrap joins the class and the underlying error for Cause. It runs only
// for a Reject handler, so the default refusal allocates nothing.
func wrap(class, err error) error {
	if err == nil || err == class || errors.Is(err, class) {
		return class
	}
	return &classErr{class: class, err: err}
}

type classErr struct{ class, err error }

func (e *classErr) Error() string   { return e.class.Error() + ": " + e.err.Error() }
func (e *classErr) Unwrap() []error { return []error{e.class, e.err} }
