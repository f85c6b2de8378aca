package bodybuffer

import (
	"bufio"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestDeadlineClearedAfterEOF: the idle deadline set while reading must
// not outlive the body. Left in place it fires during the server's
// background read while the handler still runs, cancels the request
// context and breaks the keep-alive connection (golang/go#70834). Since
// Go 1.26 net/http also clears it when its background read starts, so on
// HTTP/1 this test guards the outcome rather than our clear alone.
func TestDeadlineClearedAfterEOF(t *testing.T) {
	const idle = 100 * time.Millisecond
	g := newRig(t, Options{IdleTimeout: idle, Timeout: idle}, false, func(w http.ResponseWriter, r *http.Request) {
		// Outlast both deadlines (9/8 idle and the total) with margin.
		time.Sleep(3 * idle)
		if err := r.Context().Err(); err != nil {
			t.Errorf("handler: ctx.Err() = %v after the body was read, want nil", err)
		}
		io.WriteString(w, "done")
	})
	c := g.dial()
	br := bufio.NewReader(c)
	for i := range 2 {
		if _, err := io.WriteString(c, head(5)+"hello"); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		res, body := readResponse(t, br)
		if res == nil {
			t.Fatalf("request %d: no response, the connection was closed", i)
		}
		if res.StatusCode != 200 || body != "done" || res.Close {
			t.Errorf("request %d: %d %q close=%v, want 200 \"done\" keep-alive", i, res.StatusCode, body, res.Close)
		}
	}
	c.Close()
	g.close()
	if n := g.calls.Load(); n != 2 {
		t.Errorf("handler calls = %d, want 2", n)
	}
}

// TestIdleTimeoutPerRequest: an upload that stalls on a kept-alive
// connection is timed out even after a first request succeeded.
func TestIdleTimeoutPerRequest(t *testing.T) {
	g := newRig(t, Options{IdleTimeout: 150 * time.Millisecond}, false, nil)
	c := g.dial()
	br := bufio.NewReader(c)
	io.WriteString(c, head(3)+"abc")
	if res, body := readResponse(t, br); res == nil || body != "ok:abc" {
		t.Fatalf("first response = %v %q, want ok:abc", res, body)
	}
	io.WriteString(c, head(3)+"a")
	res, _ := readResponse(t, br)
	if res == nil || res.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("second response = %v, want 408", res)
	}
	c.Close()
	g.close()
	if s := g.b.Stats(); s.Buffered != 1 || s.TimedOut != 1 {
		t.Errorf("Stats() Buffered, TimedOut = %d, %d, want 1, 1", s.Buffered, s.TimedOut)
	}
}
