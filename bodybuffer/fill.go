package bodybuffer

import (
	"errors"
	"io"
	"net/http"
)

// initialUnknown is the first buffer for a body of unknown length
// (chunked, or HTTP/2 without content-length); it doubles as needed.
const initialUnknown = 4 << 10

// errLonger: the body went on past its declared Content-Length.
var errLonger = errors.New("bodybuffer: body longer than its Content-Length")

// fill reads r.Body to EOF into s: into pooled memory up to memBytes, the
// rest into a temporary file. It stops as soon as the body passes
// maxBytes, and sets the read deadline before each read.
func (b *Buffer) fill(w http.ResponseWriter, r *http.Request, s *body) error {
	s.dl.start(w, b.idle, b.total)
	defer s.dl.clear()

	cl := r.ContentLength
	size := min(b.memBytes, initialUnknown)
	if cl >= 0 {
		size = min(b.memBytes, cl)
	}
	s.buf = getBuf(size)
	b.c.holdMem(int64(cap(*s.buf)))

	var n int64 // body bytes read so far
	used := 0   // bytes in memory not spooled
	for {
		buf := (*s.buf)[:min(int64(cap(*s.buf)), b.memBytes)]
		var p []byte
		switch {
		case s.file != nil:
			p = buf // scratch for the file
		case used < len(buf):
			p = buf[used:]
		case cl >= 0 && n >= cl:
			// Full at the declared length: read once more to see EOF.
		case int64(len(buf)) < b.memBytes:
			b.grow(s, min(2*int64(len(buf)), b.memBytes), used)
			continue
		default:
			if err := b.spool(s, buf[:used]); err != nil {
				return err
			}
			used = 0
			continue
		}
		if cl >= 0 {
			// Read no further than the declared length, then probe: a
			// source that goes on past it has a broken framing.
			if n >= cl {
				p = s.probe[:]
			} else if rest := cl - n; int64(len(p)) > rest {
				p = p[:rest]
			}
		}
		if b.maxBytes >= 0 {
			if room := b.maxBytes + 1 - n; int64(len(p)) > room {
				p = p[:room]
			}
		}

		s.dl.refresh()
		m, err := r.Body.Read(p)
		if m > 0 {
			if cl >= 0 && n >= cl {
				return errLonger
			}
			n += int64(m)
			s.n = n
			if b.maxBytes >= 0 && n > b.maxBytes {
				return errTooLarge
			}
			if s.file != nil {
				if _, werr := s.file.Write(p[:m]); werr != nil {
					return spoolErr(werr)
				}
			} else {
				used += m
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if s.file != nil {
		if _, err := s.file.Seek(0, io.SeekStart); err != nil {
			return spoolErr(err)
		}
		// The memory was only scratch; give it back before next runs.
		b.c.holdMem(-int64(cap(*s.buf)))
		putBuf(s.buf)
		s.buf = nil
	}
	return nil
}

// grow moves the first used bytes of s's buffer into a buffer of at least
// size bytes and recycles the old one.
func (b *Buffer) grow(s *body, size int64, used int) {
	nb := getBuf(size)
	copy(*nb, (*s.buf)[:used])
	b.c.holdMem(int64(cap(*nb)) - int64(cap(*s.buf)))
	putBuf(s.buf)
	s.buf = nb
}
