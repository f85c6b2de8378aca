package bodybuffer

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func head(cl int) string {
	return fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", cl)
}

const chunkedHead = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"

func chunk(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }

// TestWire drives the middleware with raw HTTP/1.1 clients: what the
// client sends, what it gets back, whether the handler ran and how the
// outcome was counted.
func TestWire(t *testing.T) {
	small := Options{MaxBytes: 1000, IdleTimeout: 5 * time.Second}
	body1000 := strings.Repeat("b", 1000)
	tests := []struct {
		name   string
		o      Options
		send   func(t *testing.T, c *net.TCPConn, br *bufio.Reader)
		status int    // 0: the server wrote nothing
		body   string // what the handler read, when it ran
		calls  int64
		want   func(Stats) bool
	}{
		{"exact size", small, sendAll(head(1000) + body1000), 200, body1000, 1,
			func(s Stats) bool { return s.Buffered == 1 && s.Bytes == 1000 && s.Spilled == 0 }},
		{"empty", small, sendAll(head(0)), 200, "", 1,
			func(s Stats) bool { return s.Buffered == 0 }},
		{"empty chunked", small, sendAll(chunkedHead + "0\r\n\r\n"), 200, "", 1,
			func(s Stats) bool { return s.Buffered == 1 && s.Sizes.Count == 1 }},
		{"chunked", small, sendAll(chunkedHead + chunk("hello ") + chunk("world") + "0\r\n\r\n"), 200, "hello world", 1,
			func(s Stats) bool { return s.Buffered == 1 && s.Bytes == 11 }},
		{"oversize declared", small, sendAll(head(1001)), 413, "", 0,
			func(s Stats) bool { return s.TooLarge == 1 && s.Bytes == 0 }},
		{"oversize chunked", small, sendAll(chunkedHead + strings.Repeat(chunk(strings.Repeat("c", 300)), 4) + "0\r\n\r\n"), 413, "", 0,
			func(s Stats) bool { return s.TooLarge == 1 && s.Bytes == 1001 }},
		{"truncated content-length", small, halfClose(head(100) + strings.Repeat("t", 50)), 0, "", 0,
			func(s Stats) bool { return s.ClientGone == 1 && s.Bytes == 50 }},
		{"truncated chunked", small, halfClose(chunkedHead + "a\r\n01234"), 0, "", 0,
			func(s Stats) bool { return s.ClientGone == 1 }},
		{"malformed chunked", small, sendAll(chunkedHead + chunk("abc") + "zz\r\n"), 400, "", 0,
			func(s Stats) bool { return s.Truncated == 1 }},
		{"hang-up mid-body", small, hangUp(head(1000) + strings.Repeat("h", 200)), 0, "", 0,
			func(s Stats) bool { return s.ClientGone == 1 }},
		{"slowloris idle", Options{IdleTimeout: 200 * time.Millisecond}, sendAll(head(100) + "s"), 408, "", 0,
			func(s Stats) bool { return s.TimedOut == 1 && s.Bytes == 1 }},
		{"slow total", Options{IdleTimeout: 5 * time.Second, Timeout: 300 * time.Millisecond}, trickle(head(100), "s", 100, 50*time.Millisecond), 408, "", 0,
			func(s Stats) bool { return s.TimedOut == 1 && s.Bytes < 100 }},
		{"idle bound is per read", Options{IdleTimeout: 300 * time.Millisecond}, trickle(head(12), "p", 12, 40*time.Millisecond), 200, strings.Repeat("p", 12), 1,
			func(s Stats) bool { return s.Buffered == 1 && s.TimedOut == 0 }},
		{"expect 100-continue oversize", small, expectContinue(1001, false), 413, "", 0,
			func(s Stats) bool { return s.TooLarge == 1 }},
		{"expect 100-continue", small, expectContinue(500, true), 200, strings.Repeat("e", 500), 1,
			func(s Stats) bool { return s.Buffered == 1 }},
		{"spooled content-length", Options{MaxBytes: 1000, MemBytes: 256}, sendAll(head(1000) + body1000), 200, body1000, 1,
			func(s Stats) bool { return s.Spilled == 1 && s.Buffered == 1 }},
		{"spooled chunked", Options{MaxBytes: 1000, MemBytes: 256}, sendAll(chunkedHead + strings.Repeat(chunk(strings.Repeat("b", 100)), 10) + "0\r\n\r\n"), 200, body1000, 1,
			func(s Stats) bool { return s.Spilled == 1 && s.Buffered == 1 }},
		{"chunked exactly MemBytes", Options{MaxBytes: 1000, MemBytes: 256}, sendAll(chunkedHead + chunk(strings.Repeat("b", 128)) + chunk(strings.Repeat("b", 128)) + "0\r\n\r\n"), 200, strings.Repeat("b", 256), 1,
			func(s Stats) bool { return s.Spilled == 0 && s.Buffered == 1 }},
		{"spooled then oversize", Options{MaxBytes: 1000, MemBytes: 256}, sendAll(chunkedHead + strings.Repeat(chunk(strings.Repeat("b", 100)), 11) + "0\r\n\r\n"), 413, "", 0,
			func(s Stats) bool { return s.Spilled == 0 && s.TooLarge == 1 }},
		{"spooled then hang-up", Options{MaxBytes: 1000, MemBytes: 256}, hangUp(head(1000) + strings.Repeat("h", 600)), 0, "", 0,
			func(s Stats) bool { return s.ClientGone == 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, tt.o, false, nil)
			rigs.Store(t, g)
			c := g.dial()
			br := bufio.NewReader(c)
			tt.send(t, c, br)
			res, got := readResponse(t, br)
			status := 0
			if res != nil {
				status = res.StatusCode
			}
			if status != tt.status {
				t.Fatalf("status = %d, want %d (body %q)", status, tt.status, got)
			}
			if res != nil && status != 200 {
				if !res.Close {
					t.Errorf("refusal without Connection: close")
				}
				if ct := res.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
					t.Errorf("Content-Type = %q, want text/plain", ct)
				}
			}
			if status == 200 && got != "ok:"+tt.body {
				t.Errorf("response = %q, want %q", got, "ok:"+tt.body)
			}
			c.Close()
			g.close()
			if n := g.calls.Load(); n != tt.calls {
				t.Errorf("handler calls = %d, want %d", n, tt.calls)
			}
			if s := g.b.Stats(); !tt.want(s) {
				t.Errorf("Stats() = %+v, not as expected", s)
			}
		})
	}
}

func sendAll(s string) func(*testing.T, *net.TCPConn, *bufio.Reader) {
	return func(t *testing.T, c *net.TCPConn, _ *bufio.Reader) {
		if _, err := io.WriteString(c, s); err != nil {
			t.Fatal(err)
		}
	}
}

// halfClose sends s and closes the write side: the body ends early but
// the client could still read an answer.
func halfClose(s string) func(*testing.T, *net.TCPConn, *bufio.Reader) {
	return func(t *testing.T, c *net.TCPConn, br *bufio.Reader) {
		sendAll(s)(t, c, br)
		c.CloseWrite()
	}
}

// hangUp sends s, waits until the server reads the body, and closes the
// connection.
func hangUp(s string) func(*testing.T, *net.TCPConn, *bufio.Reader) {
	return func(t *testing.T, c *net.TCPConn, br *bufio.Reader) {
		sendAll(s)(t, c, br)
		waitFor(t, func() bool { return rigOf(t).b.Stats().Reading == 1 })
		c.Close()
	}
}

// trickle sends head, then piece n times with gap between pieces, until
// the server answers or n pieces went out.
func trickle(head, piece string, n int, gap time.Duration) func(*testing.T, *net.TCPConn, *bufio.Reader) {
	return func(t *testing.T, c *net.TCPConn, br *bufio.Reader) {
		sendAll(head)(t, c, br)
		for range n {
			if _, err := io.WriteString(c, piece); err != nil {
				return
			}
			// Wait gap for an answer; stop sending once there is one.
			c.SetReadDeadline(time.Now().Add(gap))
			_, err := br.Peek(1)
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			if err == nil {
				return
			}
		}
	}
}

// expectContinue sends headers with Expect: 100-continue and a declared
// length of n. If send, it waits for 100 Continue and sends the body;
// otherwise it checks that the first answer is not 100 Continue.
func expectContinue(n int, send bool) func(*testing.T, *net.TCPConn, *bufio.Reader) {
	return func(t *testing.T, c *net.TCPConn, br *bufio.Reader) {
		h := strings.Replace(head(n), "\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n", 1)
		sendAll(h)(t, c, br)
		if !send {
			line, _ := br.Peek(12)
			if string(line) == "HTTP/1.1 100" {
				t.Errorf("server sent 100 Continue for a body it refuses")
			}
			return
		}
		res, err := http.ReadResponse(br, nil)
		if err != nil || res.StatusCode != http.StatusContinue {
			t.Fatalf("first response = %v, %v; want 100 Continue", res, err)
		}
		sendAll(strings.Repeat("e", n))(t, c, br)
	}
}
