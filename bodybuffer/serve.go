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

	u := getUpload()
	defer b.putUpload(u) // also when the body's Read panics
	err := b.read(w, r, u)
	if err != nil {
		if r.ProtoMajor >= 2 {
			// On HTTP/1 the refusal sets a last deadline instead.
			u.dl.clear()
		}
		b.fail(w, r, err)
		return
	}
	u.dl.clear()
	b.c.buffered.Add(1)
	b.c.sizes.observe(u.n)
	if u.file != nil {
		b.c.spilled.Add(1)
	}

	// Hand next a shallow copy of the request with the body swapped in:
	// the caller's request is never modified.
	h := &handoff{req: *r}
	h.data = content{buf: u.buf, n: u.n, file: u.file, name: u.name, c: &b.c}
	u.buf, u.file, u.name = nil, nil, ""
	h.body.data = &h.data
	r2 := &h.req
	r2.Body, r2.ContentLength, r2.TransferEncoding, r2.GetBody = &h.body, h.data.n, nil, h.data.reopen
	defer func() {
		// Also on panic. net/http removes the files of a multipart form
		// parsed on its own request only.
		if r2.MultipartForm != nil && r2.MultipartForm != r.MultipartForm {
			r2.MultipartForm.RemoveAll()
		}
		h.data.release()
	}()
	next.ServeHTTP(w, r2)
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
