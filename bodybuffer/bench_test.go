package bodybuffer

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// rewind is a request body over fixed bytes that can be replayed without
// allocating, so the benchmarks measure the middleware, not the source.
type rewind struct {
	data []byte
	off  int
}

func (r *rewind) Read(p []byte) (int, error) {
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	n := copy(p, r.data[r.off:])
	r.off += n
	return n, nil
}
func (r *rewind) Close() error { return nil }

// benchWriter stands in for net/http's writer: a reused header map and a
// read deadline that can be set, as on a real connection.
type benchWriter struct{ h http.Header }

func (w *benchWriter) Header() http.Header             { return w.h }
func (w *benchWriter) Write(p []byte) (int, error)     { return len(p), nil }
func (w *benchWriter) WriteHeader(int)                 {}
func (w *benchWriter) SetReadDeadline(time.Time) error { return nil }

// BenchmarkBody compares, per body size, a handler reading the raw body
// with io.ReadAll (what a handler does without this package) and the
// same body buffered by bodybuffer and drained by the handler (with
// io.Copy, which uses the buffered body's WriteTo, or with io.ReadAll,
// which copies it once more into a slice of the handler's own).
//
//	go test -run '^$' -bench BenchmarkBody -benchmem ./bodybuffer/
func BenchmarkBody(b *testing.B) {
	sink := func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }
	readAll := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.ReadAll(r.Body) })
	for _, size := range []int{1 << 10, 64 << 10, 512 << 10, 4 << 20} {
		data := make([]byte, size)
		buffered := New(Options{MaxBytes: 8 << 20, MemBytes: 4 << 20})
		spooled := New(Options{MaxBytes: 8 << 20, MemBytes: 256 << 10, Dir: b.TempDir()})
		cases := []struct {
			name string
			h    http.Handler
			buf  *Buffer
		}{
			{"ReadAll", readAll, nil},
			{"bodybuffer", buffered.Handler(http.HandlerFunc(sink)), buffered},
			{"bodybuffer+ReadAll", buffered.Handler(readAll), buffered},
		}
		if size > 256<<10 {
			cases = append(cases, struct {
				name string
				h    http.Handler
				buf  *Buffer
			}{"spooled", spooled.Handler(http.HandlerFunc(sink)), spooled})
		}
		for _, c := range cases {
			b.Run(fmt.Sprintf("%s/%dKiB", c.name, size>>10), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(size))
				b.RunParallel(func(pb *testing.PB) {
					body := &rewind{data: data}
					r, _ := http.NewRequest("POST", "/", nil)
					w := &benchWriter{h: http.Header{}}
					for pb.Next() {
						body.off = 0
						r.Body, r.ContentLength = body, int64(size)
						c.h.ServeHTTP(w, r)
					}
				})
				if c.buf != nil {
					b.ReportMetric(float64(c.buf.Stats().MemPeak), "peak-buf-B")
				}
			})
		}
	}
}

// BenchmarkRefuse measures the default refusals: a declared length over
// MaxBytes (413 before any read) and a chunked body found too large while
// reading.
//
//	go test -run '^$' -bench BenchmarkRefuse -benchmem ./bodybuffer/
func BenchmarkRefuse(b *testing.B) {
	buf := New(Options{MaxBytes: 1 << 10})
	h := buf.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	data := make([]byte, 2<<10)
	for _, c := range []struct {
		name string
		cl   int64
	}{{"declared", int64(len(data))}, {"read", -1}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				body := &rewind{data: data}
				r, _ := http.NewRequest("POST", "/", nil)
				w := &benchWriter{h: http.Header{}}
				for pb.Next() {
					body.off = 0
					r.Body, r.ContentLength = body, c.cl
					h.ServeHTTP(w, r)
				}
			})
		})
	}
}
