package bodybuffer

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
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
					id := pattern(req.Header.Get("X-Id"))
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
					if own := bytes.Count(got, []byte{id}); own != len(got) {
						foreign.Add(1)
						t.Errorf("upstream: body of request %d holds %d foreign bytes", id, len(got)-own)
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
		id := pattern(r.Header.Get("X-Id"))
		if own := bytes.Count(got, []byte{id}); err != nil || len(got) != size || own != size {
			t.Errorf("handler: request %d read %d bytes (%d of its own), %v; want %d", id, len(got), own, err, size)
		}
	})
	ts := httptest.NewServer(b.Handler(mux))
	defer ts.Close()

	// Each request's body repeats a byte of its own, 1 to 2 × rounds.
	var wg sync.WaitGroup
	for i := range rounds {
		for j, path := range []string{"/forward", "/read"} {
			id := 1 + 2*i + j
			wg.Go(func() {
				req, _ := http.NewRequest("POST", ts.URL+path, bytes.NewReader(bytes.Repeat([]byte{byte(id)}, size)))
				req.Header.Set("X-Id", strconv.Itoa(id))
				res, err := ts.Client().Do(req)
				if err != nil {
					t.Errorf("%s %d: %v", path, id, err)
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
}

// pattern is the byte a request's body repeats, from its X-Id header.
func pattern(id string) byte {
	n, _ := strconv.Atoi(id)
	return byte(n)
}
