package frame_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
)

// chunked hands out its bytes in pieces whose sizes come from the fuzzer,
// like TCP segments.
type chunked struct {
	b     []byte
	sizes []byte
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := len(c.b)
	if len(c.sizes) > 0 {
		n = int(c.sizes[0]) + 1
		c.sizes = c.sizes[1:]
	}
	n = copy(p, c.b[:min(n, len(c.b))])
	c.b = c.b[n:]
	return n, nil
}

// FuzzRead feeds arbitrary streams, cut into arbitrary reads, to the frame
// reader and both decoders: nothing panics, every error is one of the
// documented ones, and what decodes re-encodes to something that decodes
// to the same message.
func FuzzRead(f *testing.F) {
	for _, r := range requests[:3] {
		f.Add(append(frame.Begin(nil), r.Append(nil)...), []byte{0, 3, 200})
	}
	f.Add(append(frame.Begin(nil), responses[1].Append(nil)...), []byte{})
	f.Add([]byte{0, 0, 0, 3, 0x12, 0x05, 'a'}, []byte{1})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, []byte{})
	f.Add([]byte{0, 0, 0, 10, 1, 2}, []byte{0})
	f.Add([]byte{0, 0}, []byte{})
	f.Fuzz(func(t *testing.T, stream, sizes []byte) {
		const limit = 1 << 16
		var r io.Reader = &chunked{b: stream, sizes: sizes}
		if len(sizes) > 0 && sizes[0]%2 == 0 {
			r = iotest.OneByteReader(r)
		}
		var buf []byte
		for range 8 {
			p, err := frame.Read(r, buf, limit)
			buf = p
			var se *frame.SizeError
			switch {
			case err == io.EOF || err == io.ErrUnexpectedEOF:
				return
			case errors.As(err, &se):
				if se.Size <= limit {
					t.Fatalf("SizeError for %d bytes under limit %d", se.Size, limit)
				}
				return
			case err != nil:
				t.Fatalf("Read() = %v, want EOF, ErrUnexpectedEOF or *SizeError", err)
			}
			if len(p) > limit {
				t.Fatalf("Read() = %d bytes, over limit %d", len(p), limit)
			}
			checkRequest(t, p)
			checkResponse(t, p)
		}
	})
}

func checkRequest(t *testing.T, p []byte) {
	var m frame.Request
	if err := m.Unmarshal(p); err != nil {
		if !errors.Is(err, frame.ErrMalformed) {
			t.Fatalf("Request.Unmarshal() = %v, want ErrMalformed", err)
		}
		return
	}
	b := m.Append(nil)
	if len(b) != m.Size() {
		t.Fatalf("Size() = %d, len(Append()) = %d", m.Size(), len(b))
	}
	var again frame.Request
	if err := again.Unmarshal(b); err != nil || !equalRequest(&m, &again) {
		t.Fatalf("Request re-decode = %+v, %v; want %+v", again, err, m)
	}
}

func checkResponse(t *testing.T, p []byte) {
	var m frame.Response
	if err := m.Unmarshal(p); err != nil {
		if !errors.Is(err, frame.ErrMalformed) {
			t.Fatalf("Response.Unmarshal() = %v, want ErrMalformed", err)
		}
		return
	}
	var again frame.Response
	if err := again.Unmarshal(m.Append(nil)); err != nil || again.Status != m.Status ||
		again.ContentType != m.ContentType || !bytes.Equal(again.Body, m.Body) {
		t.Fatalf("Response re-decode = %+v, %v; want %+v", again, err, m)
	}
}
