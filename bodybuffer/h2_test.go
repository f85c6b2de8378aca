package bodybuffer

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestHTTP2 runs the outcomes that differ on HTTP/2 streams through a
// real TLS server and net/http's HTTP/2 client.
func TestHTTP2(t *testing.T) {
	big := strings.Repeat("2", 3000)
	tests := []struct {
		name   string
		o      Options
		body   func(t *testing.T) io.Reader // nil: no body
		cl     int64                        // -1: unknown length
		status int
		want   func(Stats) bool
	}{
		{"content-length", Options{}, str(big), 3000, 200,
			func(s Stats) bool { return s.Buffered == 1 && s.Bytes == 3000 }},
		{"unknown length spooled", Options{MemBytes: 1000}, str(big), -1, 200,
			func(s Stats) bool { return s.Buffered == 1 && s.Spilled == 1 }},
		{"unknown length exactly MemBytes", Options{MemBytes: 3000}, str(big), -1, 200,
			func(s Stats) bool { return s.Buffered == 1 && s.Spilled == 0 }},
		{"declared too large", Options{MaxBytes: 2999}, str(big), 3000, 413,
			func(s Stats) bool { return s.TooLarge == 1 && s.Bytes == 0 }},
		{"read too large", Options{MaxBytes: 2999}, str(big), -1, 413,
			func(s Stats) bool { return s.TooLarge == 1 && s.Bytes == 3000 }},
		{"stalled", Options{IdleTimeout: 200 * time.Millisecond}, stall("s"), -1, 408,
			func(s Stats) bool { return s.TimedOut == 1 && s.Bytes == 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, tt.o, true, func(w http.ResponseWriter, r *http.Request) {
				if r.ProtoMajor != 2 {
					t.Errorf("ProtoMajor = %d, want 2", r.ProtoMajor)
				}
			})
			body := tt.body(t)
			req, _ := http.NewRequest("POST", g.ts.URL, body)
			req.ContentLength = tt.cl
			if tt.cl < 0 {
				req.ContentLength = 0 // unknown to the client: no content-length
				req.Body = io.NopCloser(body)
			}
			res, err := g.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			// End a stalled upload first: closing the response waits
			// for the request body writer.
			if c, ok := body.(io.Closer); ok {
				c.Close()
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != tt.status || res.ProtoMajor != 2 {
				t.Errorf("status = %d (HTTP/%d), want %d (HTTP/2)", res.StatusCode, res.ProtoMajor, tt.status)
			}
			g.close()
			if s := g.b.Stats(); !tt.want(s) {
				t.Errorf("Stats() = %+v, not as expected", s)
			}
			if want := int64(0); tt.status == 200 {
				want = 1
				if g.calls.Load() != want {
					t.Errorf("handler calls = %d, want %d", g.calls.Load(), want)
				}
			} else if g.calls.Load() != want {
				t.Errorf("handler calls = %d, want %d", g.calls.Load(), want)
			}
		})
	}
}

func str(s string) func(*testing.T) io.Reader {
	return func(*testing.T) io.Reader { return strings.NewReader(s) }
}

// stall returns a body that sends first and then nothing until closed.
func stall(first string) func(*testing.T) io.Reader {
	return func(t *testing.T) io.Reader {
		pr, pw := io.Pipe()
		go pw.Write([]byte(first))
		t.Cleanup(func() { pw.Close() })
		return pr
	}
}

// TestHTTP2ClientCancel: the client resets the stream mid-body; the
// handler does not run and the request counts as client gone.
func TestHTTP2ClientCancel(t *testing.T) {
	g := newRig(t, Options{}, true, nil)
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", g.ts.URL, pr)
	done := make(chan error, 1)
	go func() {
		res, err := g.ts.Client().Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	pw.Write([]byte("partial"))
	waitFor(t, func() bool { return g.b.Stats().Bytes == 0 && g.b.Stats().Reading == 1 })
	cancel()
	if err := <-done; err == nil {
		t.Error("Do() error = nil, want a canceled request")
	}
	g.close()
	if s := g.b.Stats(); s.ClientGone != 1 || g.calls.Load() != 0 {
		t.Errorf("ClientGone, calls = %d, %d, want 1, 0", s.ClientGone, g.calls.Load())
	}
}

// TestHTTP2ShortBody: the client ends the stream before the declared
// content-length; net/http reports it and the answer is 400.
func TestHTTP2ShortBody(t *testing.T) {
	g := newRig(t, Options{}, true, nil)
	h := dialH2(t, g)
	h.request(1, "POST", "10", "abc")
	if status := h.status(1); status != "400" {
		t.Errorf(":status = %s, want 400", status)
	}
	h.c.Close()
	g.close()
	if s := g.b.Stats(); s.Truncated != 1 || g.calls.Load() != 0 {
		t.Errorf("Truncated, calls = %d, %d, want 1, 0", s.Truncated, g.calls.Load())
	}
}

// TestHTTP2RefusalKeepsConnection: a refusal ends its own stream only;
// the connection stays open for the streams after it (no GOAWAY).
func TestHTTP2RefusalKeepsConnection(t *testing.T) {
	g := newRig(t, Options{MaxBytes: 5}, true, nil)
	h := dialH2(t, g)
	h.request(1, "POST", "10", "0123456789") // declared too large
	h.request(3, "POST", "", "0123456789")   // too large while reading
	h.request(5, "POST", "", "ok")
	for _, want := range []struct {
		id     uint32
		status string
	}{{1, "413"}, {3, "413"}, {5, "200"}} {
		if got := h.status(want.id); got != want.status {
			t.Errorf("stream %d: :status = %q, want %s", want.id, got, want.status)
		}
	}
	if h.goAway {
		t.Error("server sent GOAWAY after a refusal")
	}
	h.c.Close()
	g.close()
}

// h2client is a raw HTTP/2 connection to a rig, for frame-level checks.
type h2client struct {
	t      *testing.T
	c      *tls.Conn
	fr     *http2.Framer
	seen   map[uint32]string // :status by stream
	goAway bool
}

func dialH2(t *testing.T, g *rig) *h2client {
	t.Helper()
	c, err := tls.Dial("tcp", g.ts.Listener.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	io.WriteString(c, http2.ClientPreface)
	fr := http2.NewFramer(c, c)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	fr.WriteSettings()
	return &h2client{t: t, c: c, fr: fr, seen: map[uint32]string{}}
}

// request sends a request on stream id with the body data in one DATA
// frame that ends the stream; cl is the content-length, "" for none.
func (h *h2client) request(id uint32, method, cl, data string) {
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	fields := [][2]string{{":method", method}, {":scheme", "https"}, {":path", "/"}, {":authority", "x"}}
	if cl != "" {
		fields = append(fields, [2]string{"content-length", cl})
	}
	for _, f := range fields {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndHeaders: true})
	h.fr.WriteData(id, true, []byte(data))
}

// status reads frames until the response headers of stream id arrive,
// and returns its :status. A reset of that stream fails the test.
func (h *h2client) status(id uint32) string {
	h.t.Helper()
	for h.seen[id] == "" {
		f, err := h.fr.ReadFrame()
		if err != nil {
			h.t.Fatalf("ReadFrame() error = %v before the response of stream %d", err, id)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				h.fr.WriteSettingsAck()
			}
		case *http2.GoAwayFrame:
			h.goAway = true
		case *http2.MetaHeadersFrame:
			h.seen[f.StreamID] = f.PseudoValue("status")
		case *http2.RSTStreamFrame:
			if f.StreamID == id && h.seen[id] == "" {
				h.t.Fatalf("stream %d reset (%v), want a response", id, f.ErrCode)
			}
		}
	}
	return h.seen[id]
}
