package bodybuffer

import (
	"errors"
	"io"
	"net/http"
	"os"
	"sync/atomic"
)

// handoff is what next receives: a shallow copy of the request, with the
// complete body. It is allocated per request and never reused, because
// next may hand the body on to code that outlives it (an http.Transport
// sends and closes a request body asynchronously).
type handoff struct {
	req  http.Request
	data content
	body reader
}

// handOff moves the body read into u to a new handoff around a shallow
// copy of r: the caller's request is never modified, and u holds nothing
// any more.
func (b *Buffer) handOff(r *http.Request, u *upload) *handoff {
	h := &handoff{req: *r}
	h.data = content{buf: u.buf, n: u.n, file: u.file, name: u.name, c: &b.c}
	u.buf, u.file, u.name = nil, nil, ""
	h.body.data = &h.data
	r2 := &h.req
	r2.Body, r2.ContentLength, r2.TransferEncoding, r2.GetBody = &h.body, h.data.n, nil, h.data.reopen
	return h
}

// errReleased is what a body read after the handler returned reports.
var errReleased = errors.New("bodybuffer: request body read after the handler returned")

// content is a complete body: memory from the pool, or an unlinked
// temporary file. Every read pins it; the middleware releases it when
// next returns. Whichever comes last, the release or the end of the last
// read in progress, frees the memory and the file; a read that starts
// after the release fails with errReleased. So a pooled buffer goes back
// only once nobody can read it, and a late reader never sees another
// request's bytes.
type content struct {
	buf  *[]byte
	n    int64
	file *os.File
	name string
	c    *counters
	refs atomic.Int64 // reads in progress, | released once next returned
}

const released = 1 << 62

func (d *content) pin() bool {
	for {
		v := d.refs.Load()
		if v&released != 0 {
			return false
		}
		if d.refs.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

func (d *content) unpin() {
	if d.refs.Add(-1) == released {
		free(d.c, d.buf, d.file, d.name)
	}
}

// release ends the body's life: called once, when next has returned.
func (d *content) release() {
	if d.refs.Or(released) == 0 {
		free(d.c, d.buf, d.file, d.name)
	}
}

// reopen is Request.GetBody: a new reader over the same bytes, valid
// until next returns.
func (d *content) reopen() (io.ReadCloser, error) {
	if d.refs.Load()&released != 0 {
		return nil, errReleased
	}
	return &reader{data: d}, nil
}

// reader reads a content from its own offset: it is Request.Body, and
// what GetBody returns.
type reader struct {
	data   *content
	off    int64
	closed atomic.Bool
}

func (r *reader) Read(p []byte) (int, error) {
	if r.closed.Load() {
		return 0, http.ErrBodyReadAfterClose
	}
	d := r.data
	if !d.pin() {
		return 0, errReleased
	}
	defer d.unpin()
	if r.off >= d.n {
		return 0, io.EOF
	}
	var m int
	if d.file != nil {
		var err error
		m, err = d.file.ReadAt(p[:min(int64(len(p)), d.n-r.off)], r.off)
		r.off += int64(m)
		if err != nil && err != io.EOF {
			return m, err
		}
		return m, nil
	}
	m = copy(p, (*d.buf)[r.off:d.n])
	r.off += int64(m)
	return m, nil
}

// WriteTo writes the rest of the body to w; io.Copy uses it.
func (r *reader) WriteTo(w io.Writer) (int64, error) {
	if r.closed.Load() {
		return 0, http.ErrBodyReadAfterClose
	}
	d := r.data
	if !d.pin() {
		return 0, errReleased
	}
	defer d.unpin()
	if r.off >= d.n {
		return 0, nil
	}
	var m int64
	var err error
	if d.file != nil {
		m, err = io.Copy(w, io.NewSectionReader(d.file, r.off, d.n-r.off))
	} else {
		var k int
		k, err = w.Write((*d.buf)[r.off:d.n])
		m = int64(k)
	}
	r.off += m
	return m, err
}

// Close marks this reader closed; the memory and the file are released
// once next has returned and no read is in progress.
func (r *reader) Close() error {
	r.closed.Store(true)
	return nil
}
