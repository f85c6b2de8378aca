package bodybuffer

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
)

// body is what next sees as Request.Body: the complete request body, in
// memory or in an unlinked temporary file. bodies are pooled with their
// GetBody func, so a request allocates nothing here at steady state.
type body struct {
	buf    *[]byte // pooled memory; nil once released or after spooling
	n      int64   // body length
	off    int64   // read offset into the memory
	file   *os.File
	name   string // set only when the file could not be unlinked early
	closed bool
	probe  [1]byte // reads past a declared Content-Length land here

	getBody func() (io.ReadCloser, error)
	dl      deadline
}

var bodyPool = sync.Pool{New: func() any {
	s := new(body)
	s.getBody = s.reopen
	return s
}}

func getBody() *body { return bodyPool.Get().(*body) }

// mem returns the buffered bytes when the body is in memory.
func (s *body) mem() []byte { return (*s.buf)[:s.n] }

// Read reads the buffered body.
func (s *body) Read(p []byte) (int, error) {
	if s.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if s.file != nil {
		return s.file.Read(p)
	}
	if s.off >= s.n {
		return 0, io.EOF
	}
	m := copy(p, (*s.buf)[s.off:s.n])
	s.off += int64(m)
	return m, nil
}

// WriteTo writes the rest of the body to w; io.Copy uses it.
func (s *body) WriteTo(w io.Writer) (int64, error) {
	if s.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if s.file != nil {
		return io.Copy(w, s.file)
	}
	m, err := w.Write((*s.buf)[s.off:s.n])
	s.off += int64(m)
	return int64(m), err
}

// Close marks the body closed; the memory and the file are released by
// the middleware once next has returned.
func (s *body) Close() error {
	s.closed = true
	return nil
}

// reopen is Request.GetBody: a new reader over the same bytes, valid
// until next returns.
func (s *body) reopen() (io.ReadCloser, error) {
	if s.buf == nil && s.file == nil {
		return nil, errors.New("bodybuffer: GetBody called after the handler returned")
	}
	if s.file != nil {
		return io.NopCloser(io.NewSectionReader(s.file, 0, s.n)), nil
	}
	return io.NopCloser(bytes.NewReader(s.mem())), nil
}

// release frees the body's memory and file and puts it back in the pool.
// It runs deferred, so also when next panics.
func (b *Buffer) release(s *body) {
	if s.buf != nil {
		b.c.holdMem(-int64(cap(*s.buf)))
		putBuf(s.buf)
		s.buf = nil
	}
	if s.file != nil {
		s.file.Close()
		if s.name != "" {
			os.Remove(s.name)
		}
		s.file, s.name = nil, ""
	}
	s.n, s.off, s.closed = 0, 0, false
	s.dl = deadline{}
	bodyPool.Put(s)
}
