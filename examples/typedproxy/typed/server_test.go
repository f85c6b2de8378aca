package typed_test

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
	"github.com/frontdoor-go/frontdoor/examples/typedproxy/typed"
)

func requestFrame(t *testing.T, r *frame.Request) []byte {
	t.Helper()
	f := r.Append(frame.Begin(nil))
	if err := frame.End(f, frame.DefaultMaxSize); err != nil {
		t.Fatal(err)
	}
	return f
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c
}

func readResponse(t *testing.T, br *bufio.Reader) frame.Response {
	t.Helper()
	p, err := frame.Read(br, nil, frame.DefaultMaxSize)
	if err != nil {
		t.Fatalf("frame.Read() = %v, want nil", err)
	}
	var resp frame.Response
	if err := resp.Unmarshal(p); err != nil {
		t.Fatalf("Unmarshal() = %v, want nil", err)
	}
	return resp
}

// TestServerSplitFrames writes two requests in pieces of every size,
// including a piece that ends one frame and starts the next.
func TestServerSplitFrames(t *testing.T) {
	_, addr := upstream(t, func(w *frame.Response, r *frame.Request) { w.Body = []byte(r.URL) }, nil)
	stream := append(requestFrame(t, &frame.Request{URL: "/one"}), requestFrame(t, &frame.Request{URL: "/two"})...)
	for _, piece := range []int{1, 3, 5, len(stream) - 1} {
		c := dial(t, addr)
		for b := stream; len(b) > 0; {
			n := min(piece, len(b))
			if _, err := c.Write(b[:n]); err != nil {
				t.Fatal(err)
			}
			b = b[n:]
		}
		br := bufio.NewReader(c)
		for _, want := range []string{"/one", "/two"} {
			if got := readResponse(t, br); got.Status != 200 || string(got.Body) != want {
				t.Errorf("pieces of %d: response = %d %q, want 200 %q", piece, got.Status, got.Body, want)
			}
		}
	}
}

// TestServerBadFrames: each kind of bad frame closes its connection; the
// server counts it and goes on serving other connections.
func TestServerBadFrames(t *testing.T) {
	s, addr := upstream(t, func(w *frame.Response, r *frame.Request) {
		if r.URL == "/panic" {
			panic("handler bug")
		}
	}, nil)
	over := make([]byte, 4)
	binary.BigEndian.PutUint32(over, frame.DefaultMaxSize+1)
	garbage := append([]byte{0, 0, 0, 3}, 0x12, 0x05, 'a') // string longer than the frame
	tests := []struct {
		name      string
		send      []byte
		closeSend bool // close our write side after sending (truncation)
		wantBad   uint64
		wantPanic uint64
	}{
		{"length over the max", over, false, 1, 0},
		{"garbage protobuf", garbage, false, 2, 0},
		{"truncated frame", []byte{0, 0, 0, 10, 1, 2}, true, 3, 0},
		{"handler panics", requestFrame(t, &frame.Request{URL: "/panic"}), false, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, addr)
			c.Write(tt.send)
			if tt.closeSend {
				c.(*net.TCPConn).CloseWrite()
			}
			if n, err := c.Read(make([]byte, 1)); err != io.EOF {
				t.Errorf("Read() = %d, %v; want the server to close (io.EOF)", n, err)
			}
			waitFor(t, func() bool { return s.Stats().Conns == 0 })
			if st := s.Stats(); st.BadFrames != tt.wantBad || st.Panics != tt.wantPanic {
				t.Errorf("Stats() = %+v, want %d bad frames, %d panics", st, tt.wantBad, tt.wantPanic)
			}
			// Still serving.
			ok := dial(t, addr)
			ok.Write(requestFrame(t, &frame.Request{URL: "/"}))
			if got := readResponse(t, bufio.NewReader(ok)); got.Status != 200 {
				t.Errorf("next connection status = %d, want 200", got.Status)
			}
		})
	}
}

func TestServerIdleTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &typed.Server{Handler: func(*frame.Response, *frame.Request) {}, IdleTimeout: 20 * time.Millisecond}
	done := make(chan error)
	go func() { done <- s.Serve(l) }()
	c := dial(t, l.Addr().String())
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("idle connection Read() = %v, want io.EOF", err)
	}
	s.Close()
	if err := <-done; err != typed.ErrServerClosed {
		t.Errorf("Serve() = %v, want ErrServerClosed", err)
	}
	if st := s.Stats(); st.BadFrames != 0 || st.Conns != 0 {
		t.Errorf("Stats() = %+v, want no bad frame, no connection", st)
	}
}

func TestServerCloseEndsConnections(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &typed.Server{Handler: func(*frame.Response, *frame.Request) {}}
	done := make(chan error)
	go func() { done <- s.Serve(l) }()
	c := dial(t, l.Addr().String())
	c.Write(requestFrame(t, &frame.Request{}))
	readResponse(t, bufio.NewReader(c))
	s.Close()
	if err := <-done; err != typed.ErrServerClosed {
		t.Errorf("Serve() = %v, want ErrServerClosed", err)
	}
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("Read() after Close = %v, want io.EOF", err)
	}
	if err := s.Serve(l); err != typed.ErrServerClosed {
		t.Errorf("Serve() after Close = %v, want ErrServerClosed", err)
	}
}
