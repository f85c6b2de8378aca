package bodybuffer

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// closeBound is how soon after a refusal the server must have closed the
// connection: the grace for the rest of the body, net/http's own wait
// before the close, and slack for a busy machine.
const closeBound = 3 * time.Second

// TestRefusalClosesConnection: after each refusal written while the body
// is still unread, the HTTP/1.1 server closes the connection soon, with
// and without Server.ReadTimeout, although the client holds its side
// open and never finishes the body.
func TestRefusalClosesConnection(t *testing.T) {
	tests := []struct {
		name   string
		o      Options
		send   string
		status int
	}{
		{"408 idle content-length", Options{IdleTimeout: 200 * time.Millisecond}, head(10000) + "x", 408},
		{"408 idle chunked", Options{IdleTimeout: 200 * time.Millisecond}, chunkedHead + chunk("x"), 408},
		{"408 total", Options{Timeout: 200 * time.Millisecond}, head(10000) + "x", 408},
		{"413 declared", Options{MaxBytes: 1000}, head(1001), 413},
		{"413 while reading", Options{MaxBytes: 1000}, chunkedHead + strings.Repeat(chunk(strings.Repeat("c", 300)), 4), 413},
		{"400 malformed", Options{}, chunkedHead + chunk("abc") + "zz\r\n", 400},
	}
	for _, readTimeout := range []time.Duration{0, 30 * time.Second} {
		for _, tt := range tests {
			name := tt.name
			if readTimeout > 0 {
				name += " with ReadTimeout"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				g := newRigWith(t, tt.o, false, nil, func(s *http.Server) { s.ReadTimeout = readTimeout })
				c := g.dial()
				br := bufio.NewReader(c)
				if _, err := io.WriteString(c, tt.send); err != nil {
					t.Fatal(err)
				}
				res, _ := readResponse(t, br)
				if res == nil || res.StatusCode != tt.status || !res.Close {
					t.Fatalf("response = %v, want %d with Connection: close", res, tt.status)
				}
				if took := waitClosed(t, c, br); took > closeBound {
					t.Errorf("connection closed %v after the response, want within %v", took, closeBound)
				}
				g.close()
			})
		}
	}
}

// TestSlowlorisCutOffAfterTimeout: a client that keeps trickling its body
// after its 408 gets its connection closed anyway.
func TestSlowlorisCutOffAfterTimeout(t *testing.T) {
	g := newRig(t, Options{IdleTimeout: 200 * time.Millisecond}, false, nil)
	c := g.dial()
	br := bufio.NewReader(c)
	io.WriteString(c, head(100000)+"x")
	res, _ := readResponse(t, br)
	if res == nil || res.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("response = %v, want 408", res)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if _, err := io.WriteString(c, "s"); err != nil {
					return
				}
			}
		}
	}()
	if took := waitClosed(t, c, br); took > closeBound {
		t.Errorf("connection closed %v after the 408, want within %v", took, closeBound)
	}
	g.close()
}

// TestUploadingClientReadsRefusal: a client that keeps sending a large
// body reads the 413 rather than a reset, and the connection then closes.
func TestUploadingClientReadsRefusal(t *testing.T) {
	g := newRig(t, Options{MaxBytes: 1000}, false, nil)
	c := g.dial()
	br := bufio.NewReader(c)
	io.WriteString(c, chunkedHead)
	go func() {
		piece := chunk(strings.Repeat("u", 16<<10))
		for range 1024 { // 16 MiB at most
			if _, err := io.WriteString(c, piece); err != nil {
				return
			}
		}
	}()
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("response = %v, %v, want 413", res, err)
	}
	if took := waitClosed(t, c, br); took > closeBound {
		t.Errorf("connection closed %v after the 413, want within %v", took, closeBound)
	}
	c.Close()
	g.close()
}

// waitClosed reads from c until the server closes it (EOF or reset) and
// returns how long that took; it fails the test if the connection is
// still open after twice closeBound.
func waitClosed(t *testing.T, c net.Conn, br *bufio.Reader) time.Duration {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(2 * closeBound))
	_, err := io.Copy(io.Discard, br)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("connection still open %v after the response", 2*closeBound)
	}
	took := time.Since(start)
	t.Logf("closed %v after the response (%v)", took.Round(time.Millisecond), err)
	return took
}
