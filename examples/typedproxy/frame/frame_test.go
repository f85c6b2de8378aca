package frame_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
)

// encode returns one frame carrying payload.
func encode(t testing.TB, payload []byte) []byte {
	t.Helper()
	f := append(frame.Begin(nil), payload...)
	if err := frame.End(f, len(payload)); err != nil {
		t.Fatalf("End() = %v, want nil", err)
	}
	return f
}

func TestHeaderIsBigEndian(t *testing.T) {
	f := encode(t, make([]byte, 0x010203))
	if got, want := f[:4], []byte{0, 1, 2, 3}; !bytes.Equal(got, want) {
		t.Errorf("header = % x, want % x", got, want)
	}
}

func TestReadSplitAcrossReads(t *testing.T) {
	small := []byte("hello")
	large := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320 KB, past growStep
	for _, payload := range [][]byte{nil, small, large} {
		stream := append(encode(t, payload), encode(t, small)...)
		readers := map[string]func(io.Reader) io.Reader{
			"whole":   func(r io.Reader) io.Reader { return r },
			"onebyte": iotest.OneByteReader,
			"half":    iotest.HalfReader,
			"dataerr": iotest.DataErrReader,
		}
		for name, wrap := range readers {
			t.Run(name, func(t *testing.T) {
				r := wrap(bytes.NewReader(stream))
				got, err := frame.Read(r, make([]byte, 0, 16), 1<<20)
				if err != nil || !bytes.Equal(got, payload) {
					t.Fatalf("Read() = %d bytes, %v; want %d bytes, nil", len(got), err, len(payload))
				}
				got, err = frame.Read(r, got[:0], 1<<20)
				if err != nil || !bytes.Equal(got, small) {
					t.Fatalf("second Read() = %q, %v; want %q, nil", got, err, small)
				}
				if _, err := frame.Read(r, got, 1<<20); err != io.EOF {
					t.Errorf("Read() at end = %v, want io.EOF", err)
				}
			})
		}
	}
}

func TestReadErrors(t *testing.T) {
	full := encode(t, []byte("payload"))
	tests := []struct {
		name  string
		in    []byte
		limit int
		want  error
	}{
		{"empty", nil, 100, io.EOF},
		{"partial header", full[:2], 100, io.ErrUnexpectedEOF},
		{"truncated payload", full[:len(full)-1], 100, io.ErrUnexpectedEOF},
		{"header only", full[:4], 100, io.ErrUnexpectedEOF},
		{"over limit", full, 6, &frame.SizeError{}},
		{"huge announced", []byte{0xff, 0xff, 0xff, 0xff}, frame.DefaultMaxSize, &frame.SizeError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := frame.Read(bytes.NewReader(tt.in), nil, tt.limit)
			var se *frame.SizeError
			switch {
			case errors.As(tt.want, &se):
				if !errors.As(err, &se) || se.Max != tt.limit {
					t.Errorf("Read() = %v, want *SizeError with Max %d", err, tt.limit)
				}
			case err != tt.want:
				t.Errorf("Read() = %v, want %v", err, tt.want)
			}
		})
	}
}

// A frame announcing far more than arrives must not cost the full size.
func TestReadGrowsWithData(t *testing.T) {
	in := []byte{0, 0x40, 0, 0, 'x'} // announces 4 MiB, sends one byte
	got, err := frame.Read(bytes.NewReader(in), nil, frame.DefaultMaxSize)
	if err != io.ErrUnexpectedEOF || cap(got) > 128<<10 {
		t.Errorf("Read() = cap %d, %v; want cap <= 128 KiB, io.ErrUnexpectedEOF", cap(got), err)
	}
}

func TestEndOverLimit(t *testing.T) {
	f := append(frame.Begin(nil), "12345"...)
	var se *frame.SizeError
	if err := frame.End(f, 4); !errors.As(err, &se) || se.Size != 5 {
		t.Errorf("End() = %v, want *SizeError{Size: 5}", err)
	}
	if err := frame.End(f, 5); err != nil {
		t.Errorf("End() at the limit = %v, want nil", err)
	}
}

func TestPoolReuses(t *testing.T) {
	var p frame.Pool
	b := p.Get()
	if len(*b) != 0 || cap(*b) == 0 {
		t.Fatalf("Get() = len %d cap %d, want len 0 cap > 0", len(*b), cap(*b))
	}
	*b = append(*b, "abc"...)
	p.Put(b)
	var nilPool *frame.Pool
	if b := nilPool.Get(); b == nil || len(*b) != 0 {
		t.Errorf("nil Pool Get() = %v, want empty buffer", b)
	}
	nilPool.Put(b) // must not panic
	big := make([]byte, 0, 1<<20)
	p.Put(&big) // dropped, must not panic
}
