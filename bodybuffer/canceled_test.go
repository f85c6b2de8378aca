package bodybuffer

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// Over a real HTTP/1.1 connection: when the server's BaseContext is
// canceled while a body is being read, a client that goes on sending gets
// 503 with Retry-After, not a cut connection, and next does not run.
func TestBaseContextCanceledWhileReadingIsRefused(t *testing.T) {
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := newRigWith(t, Options{}, false, nil, func(s *http.Server) {
		s.BaseContext = func(net.Listener) context.Context { return base }
	})
	c := g.dial()
	br := bufio.NewReader(c)
	if _, err := io.WriteString(c, head(10)+"01234"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return g.b.Stats().Bytes == 0 && g.b.Stats().Reading == 1 })
	cancel()
	if _, err := io.WriteString(c, "56789"); err != nil {
		t.Fatal(err)
	}
	res, body := readResponse(t, br)
	if res == nil {
		t.Fatal("the server closed the connection without an answer")
	}
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "1" || !res.Close {
		t.Errorf("got %d, Retry-After %q, close %v, want 503, 1, true", res.StatusCode, res.Header.Get("Retry-After"), res.Close)
	}
	if !strings.Contains(body, "retry") {
		t.Errorf("body %q", body)
	}
	c.Close()
	g.close()
	if s := g.b.Stats(); s.Canceled != 1 || s.ClientGone != 0 || g.calls.Load() != 0 {
		t.Errorf("Canceled, ClientGone, calls = %d, %d, %d, want 1, 0, 0", s.Canceled, s.ClientGone, g.calls.Load())
	}
}
