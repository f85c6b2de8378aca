package bodybuffer

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
)

// initialUnknown is the first buffer for a body of unknown length
// (chunked, or HTTP/2 without content-length); it doubles as needed.
// initialMax caps the first buffer of a body of declared length: a
// larger body grows by doubling as its bytes arrive, so a declared
// length alone never makes the middleware allocate.
const (
	initialUnknown = 4 << 10
	initialMax     = 1 << maxClassShift
)

// errLonger: the body went on past its declared Content-Length.
var errLonger = errors.New("bodybuffer: body longer than its Content-Length")

// upload is the state of one body being read: the memory and file it is
// read into, and the read deadline. Uploads are pooled; nothing outside
// the middleware ever holds one.
type upload struct {
	buf   *[]byte // pooled memory; nil after spooling
	n     int64   // body bytes read
	file  *os.File
	name  string  // set only when the file could not be unlinked early
	probe [1]byte // reads past the known length land here
	dl    deadline
}

var uploadPool = sync.Pool{New: func() any { return new(upload) }}

func getUpload() *upload { return uploadPool.Get().(*upload) }

// putUpload frees what u still holds and puts it back in the pool.
func (b *Buffer) putUpload(u *upload) {
	free(&b.c, u.buf, u.file, u.name)
	*u = upload{}
	uploadPool.Put(u)
}

// free gives back a body's memory and file.
func free(c *counters, buf *[]byte, f *os.File, name string) {
	if buf != nil {
		c.holdMem(-int64(cap(*buf)))
		putBuf(buf)
	}
	if f != nil {
		f.Close()
		if name != "" {
			os.Remove(name)
		}
	}
}

// read fills u from r.Body and counts the upload while it runs.
func (b *Buffer) read(w http.ResponseWriter, r *http.Request, u *upload) error {
	b.c.reading.Add(1)
	defer b.c.reading.Add(-1)
	err := b.fill(w, r, u)
	b.c.bytes.Add(uint64(u.n))
	if err == nil && r.Context().Err() != nil {
		// EOF reached, but the client left or the deadline passed
		// meanwhile (for HTTP/1 the server's background read may have
		// seen the connection close).
		err = errCtxDone
	}
	return err
}

// fill reads r.Body to EOF into u: into pooled memory up to memBytes, the
// rest into a temporary file. It stops as soon as the body passes
// maxBytes, and sets the read deadline before each read. The deadline is
// left in place for the caller to clear or extend.
func (b *Buffer) fill(w http.ResponseWriter, r *http.Request, u *upload) error {
	u.dl.start(w, r.Context(), &b.lim)

	cl := r.ContentLength
	size := min(b.memBytes, initialUnknown)
	if cl >= 0 {
		size = min(b.memBytes, cl, initialMax)
	}
	u.buf = getBuf(size)
	b.c.holdMem(int64(cap(*u.buf)))

	used := 0 // bytes in memory, not spooled
	for {
		buf := (*u.buf)[:min(int64(cap(*u.buf)), b.memBytes)]
		var p []byte
		probing := false // memory is full and the length unknown
		switch {
		case cl >= 0 && u.n >= cl:
			// The declared length is in: read once more to see EOF; a
			// source that goes on past it has a broken framing.
			p = u.probe[:]
		case u.file != nil:
			p = buf // scratch for the file
		case used < len(buf):
			p = buf[used:]
		case int64(len(buf)) < b.memBytes:
			next := min(2*int64(len(buf)), b.memBytes)
			if cl >= 0 {
				next = min(next, cl)
			}
			b.grow(u, next, used)
			continue
		case cl >= 0:
			// More is declared than memory holds.
			if err := b.spool(u, buf[:used]); err != nil {
				return err
			}
			used = 0
			continue
		default:
			// One more byte tells whether the body goes on, to a file,
			// or ends here, exactly memBytes long.
			p, probing = u.probe[:], true
		}
		if rest := cl - u.n; cl >= 0 && rest > 0 && int64(len(p)) > rest {
			p = p[:rest]
		}
		if b.maxBytes >= 0 {
			// Read at most one byte past the limit: enough to know.
			if room := b.maxBytes - u.n; int64(len(p)) > room {
				p = p[:room+1]
			}
		}

		u.dl.refresh(u.n)
		m, err := r.Body.Read(p)
		if m > 0 {
			if cl >= 0 && u.n >= cl {
				return errLonger
			}
			u.n += int64(m)
			if b.maxBytes >= 0 && u.n > b.maxBytes {
				return errTooLarge
			}
			switch {
			case probing:
				if err := b.spool(u, buf[:used]); err != nil {
					return err
				}
				used = 0
				fallthrough
			case u.file != nil:
				if _, werr := u.file.Write(p[:m]); werr != nil {
					return spoolErr(werr)
				}
			default:
				used += m
			}
		}
		if err == io.EOF {
			if cl >= 0 && u.n < cl {
				return io.ErrUnexpectedEOF
			}
			break
		}
		if err != nil {
			return err
		}
	}
	if u.file != nil {
		// The memory was only scratch; give it back before next runs.
		free(&b.c, u.buf, nil, "")
		u.buf = nil
	}
	return nil
}

// grow moves the first used bytes of u's buffer into a buffer of at least
// size bytes and recycles the old one.
func (b *Buffer) grow(u *upload, size int64, used int) {
	nb := getBuf(size)
	copy(*nb, (*u.buf)[:used])
	b.c.holdMem(int64(cap(*nb)) - int64(cap(*u.buf)))
	putBuf(u.buf)
	u.buf = nb
}

// spool moves a body that outgrew memBytes to a new temporary file in
// b.dir and writes the bytes buffered so far to it. The file is unlinked
// at once, so it vanishes with the descriptor even if the process dies;
// where unlinking an open file fails (Windows) its name is kept and it is
// removed on release.
func (b *Buffer) spool(u *upload, head []byte) error {
	f, err := os.CreateTemp(b.dir, "bodybuffer-*")
	if err != nil {
		return spoolErr(err)
	}
	u.file = f
	if err := os.Remove(f.Name()); err != nil {
		u.name = f.Name()
	}
	if _, err := f.Write(head); err != nil {
		return spoolErr(err)
	}
	return nil
}

func spoolErr(err error) error { return fmt.Errorf("%w: %w", ErrSpool, err) }
