package bodybuffer

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"
)

// FuzzWire sends a random body over a raw connection, framed by
// Content-Length or chunked, split into writes at random boundaries, and
// sometimes cut short. The handler must see exactly the body sent or not
// run at all, and nothing may be left behind: no buffer, no file.
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
	const maxBytes = 512
	f.Fuzz(func(t *testing.T, body []byte, seed uint64, mode uint8) {
		rng := rand.New(rand.NewPCG(seed, seed>>1))
		chunked := mode%2 == 1
		cut := mode%5 >= 2 // 2, 3, 4: the body is not complete
		g := newRig(t, Options{MaxBytes: maxBytes, MemBytes: 64, IdleTimeout: 10 * time.Second}, false, nil)

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

		c := g.dial()
		for rest := data; len(rest) > 0; {
			n := 1 + rng.IntN(len(rest))
			if _, err := c.Write(rest[:n]); err != nil {
				break // the server refused early and closed
			}
			rest = rest[n:]
		}
		if cut {
			c.CloseWrite()
		}
		res, got := readResponse(t, bufio.NewReader(c))
		c.Close()
		g.close()

		calls := g.calls.Load()
		switch {
		case cut || (!chunked && len(body) > maxBytes):
			// An incomplete body, or one refused by its declared length.
			if calls != 0 {
				t.Fatalf("handler ran %d times for an incomplete or refused body", calls)
			}
		case len(body) > maxBytes:
			if calls != 0 || res == nil || res.StatusCode != http.StatusRequestEntityTooLarge {
				t.Fatalf("oversize chunked body: calls %d, response %v, want 0 and 413", calls, res)
			}
		default:
			if calls != 1 || res == nil || res.StatusCode != 200 {
				t.Fatalf("complete body: calls %d, response %v, want 1 and 200", calls, res)
			}
			if seen, _ := g.last.Load().(string); seen != string(body) || got != "ok:"+string(body) {
				t.Fatalf("handler saw %q, want %q", seen, body)
			}
		}
		if s := g.b.Stats(); s.MemHeld != 0 || s.Reading != 0 {
			t.Fatalf("leak: %+v", s)
		}
	})
}
