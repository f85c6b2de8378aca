package bodybuffer

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestForwardedBodyOutlivesHandler: a handler forwards the body through
// a real http.Transport to an upstream that answers before reading it,
// and returns while the Transport still sends the body. Other requests
// run at the same time. The late reads of the Transport must never see
// another request's bytes (nor crash), and every handler that reads its
// body sees all of it.
func TestForwardedBodyOutlivesHandler(t *testing.T) {
	const size = 256 << 10
	const rounds = 100

	// The upstream answers 403 as soon as it has the headers, then reads
	// what the Transport still sends and records any foreign byte.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var foreign, upstreamBodies atomic.Int64
	var upstream sync.WaitGroup
	upstream.Add(1)
	go func() {
		defer upstream.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.(*net.TCPConn).SetReadBuffer(4 << 10)
			upstream.Add(1)
			go func() {
				defer upstream.Done()
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					id := req.Header.Get("X-Id")
					io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
					// Read in small steps, so that the Transport is still
					// sending when the handler has returned.
					var got []byte
					for buf := make([]byte, 8<<10); ; {
						n, err := req.Body.Read(buf)
						got = append(got, buf[:n]...)
						if err != nil {
							break
						}
						runtime.Gosched()
					}
					upstreamBodies.Add(1)
					if i := bytes.IndexFunc(got, func(r rune) bool { return r != rune(id[0]) }); i >= 0 {
						foreign.Add(1)
						t.Errorf("upstream: body of request %q holds %q at %d", id, got[i], i)
					}
				}
			}()
		}
	}()

	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			c.(*net.TCPConn).SetWriteBuffer(4 << 10)
		}
		return c, err
	}}
	defer tr.CloseIdleConnections()

	b := New(Options{MaxBytes: size})
	mux := http.NewServeMux()
	mux.HandleFunc("/forward", func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(context.Background(), "POST", "http://"+ln.Addr().String(), r.Body)
		req.ContentLength = r.ContentLength
		req.Header.Set("X-Id", r.Header.Get("X-Id"))
		res, err := tr.RoundTrip(req)
		if err != nil {
			return
		}
		res.Body.Close()
		w.WriteHeader(res.StatusCode)
	})
	mux.HandleFunc("/read", func(w http.ResponseWriter, r *http.Request) {
		got, err := io.ReadAll(r.Body)
		id := r.Header.Get("X-Id")
		if err != nil || len(got) != size || bytes.Count(got, []byte(id)) != size {
			t.Errorf("handler: request %q read %d bytes (%d of its own), %v; want %d", id, len(got), bytes.Count(got, []byte(id)), err, size)
		}
	})
	ts := httptest.NewServer(b.Handler(mux))
	defer ts.Close()

	var wg sync.WaitGroup
	for i := range rounds {
		for _, path := range []string{"/forward", "/read"} {
			id := string(rune('A' + (2*i+len(path))%58))
			wg.Go(func() {
				req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(strings.Repeat(id, size)))
				req.Header.Set("X-Id", id)
				res, err := ts.Client().Do(req)
				if err != nil {
					t.Errorf("%s %q: %v", path, id, err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			})
		}
	}
	wg.Wait()
	ts.Close()
	tr.CloseIdleConnections()
	ln.Close()
	upstream.Wait()
	waitFor(t, func() bool { return b.Stats().MemHeld == 0 })
	if s := b.Stats(); s.Buffered != 2*rounds || s.Reading != 0 {
		t.Errorf("Stats() Buffered, Reading = %d, %d, want %d, 0", s.Buffered, s.Reading, 2*rounds)
	}
	t.Logf("upstream received %d bodies, %d with a foreign byte", upstreamBodies.Load(), foreign.Load())
	_ = fmt.Sprint
}
