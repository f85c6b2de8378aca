package bodybuffer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FuzzWire frames a random body by Content-Length or chunked, sometimes
// cut short, parses it with net/http's own request reader, and hands it
// to the middleware in reads of random sizes. The handler must see
// exactly the body sent or not run at all, and nothing may be left
// behind: no buffer, no file. It runs in memory, so that an input costs
// microseconds; TestWire covers the same outcomes on a real server.
//
//	go test -run '^$' -fuzz FuzzWire ./bodybuffer/
func FuzzWire(f *testing.F) {
	f.Add([]byte("hello"), uint64(1), uint8(0))
	f.Add([]byte("hello, chunked world"), uint64(2), uint8(1))
	f.Add(bytes.Repeat([]byte("spool"), 40), uint64(3), uint8(1))
	f.Add(bytes.Repeat([]byte("x"), 600), uint64(4), uint8(0))
	f.Add(bytes.Repeat([]byte("y"), 600), uint64(5), uint8(1))
	f.Add([]byte("truncated body"), uint64(6), uint8(2))
	f.Add(bytes.Repeat([]byte("z"), 300), uint64(7), uint8(3))
	f.Add([]byte("no final chunk"), uint64(8), uint8(4))
	f.Add([]byte(""), uint64(9), uint8(1))
	f.Add(bytes.Repeat([]byte("m"), 64), uint64(10), uint8(1))
	const maxBytes, memBytes = 512, 64
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte, seed uint64, mode uint8) {
		rng := rand.New(rand.NewPCG(seed, seed>>1))
		chunked := mode%2 == 1
		cut := mode%5 >= 2 // 2, 3, 4: the body is not complete

		var wire bytes.Buffer
		if chunked {
			wire.WriteString(chunkedHead)
			for rest := body; len(rest) > 0; {
				n := 1 + rng.IntN(len(rest))
				fmt.Fprintf(&wire, "%x\r\n%s\r\n", n, rest[:n])
				rest = rest[n:]
			}
			wire.WriteString("0\r\n\r\n")
		} else {
			wire.WriteString(head(len(body)))
			wire.Write(body)
		}
		data := wire.Bytes()
		if cut {
			// Cut anywhere after the headers and before the end.
			h := bytes.Index(data, []byte("\r\n\r\n")) + 4
			if len(data) == h {
				return // nothing to cut
			}
			data = data[:h+rng.IntN(len(data)-h)]
		}
		r, err := http.ReadRequest(bufio.NewReaderSize(&splitReader{data: data, rng: rng}, 16))
		if err != nil {
			t.Fatalf("ReadRequest() error = %v", err)
		}

		b := New(Options{MaxBytes: maxBytes, MemBytes: memBytes, Dir: dir})
		calls := 0
		var seen []byte
		w := httptest.NewRecorder()
		b.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls++
			var err error
			seen, err = io.ReadAll(r.Body)
			if err != nil {
				t.Errorf("handler: ReadAll() error = %v", err)
			}
		})).ServeHTTP(w, r)

		switch {
		case cut || (!chunked && len(body) > maxBytes):
			// An incomplete body, or one refused by its declared length.
			if calls != 0 {
				t.Fatalf("handler ran %d times for an incomplete or refused body", calls)
			}
		case len(body) > maxBytes:
			if calls != 0 || w.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("oversize chunked body: calls %d, status %d, want 0 and 413", calls, w.Code)
			}
		default:
			if calls != 1 || w.Code != 200 || !bytes.Equal(seen, body) {
				t.Fatalf("complete body: calls %d, status %d, handler saw %q; want 1, 200, %q", calls, w.Code, seen, body)
			}
			if s := b.Stats(); (s.Spilled == 1) != (len(body) > memBytes) {
				t.Fatalf("%d-byte body: Spilled = %d with MemBytes %d", len(body), s.Spilled, memBytes)
			}
		}
		if s := b.Stats(); s.MemHeld != 0 || s.Reading != 0 {
			t.Fatalf("leak: %+v", s)
		}
		if len(data) > memBytes { // only then can a file have been made
			checkSpoolDir(t, dir)
		}
	})
}

// splitReader returns data in reads of random sizes, as a network does.
type splitReader struct {
	data []byte
	rng  *rand.Rand
}

func (s *splitReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:1+s.rng.IntN(len(p))], s.data)
	s.data = s.data[n:]
	return n, nil
}
