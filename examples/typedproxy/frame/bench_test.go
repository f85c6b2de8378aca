package frame_test

import (
	"bytes"
	"testing"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
)

var benchReq = frame.Request{Version: 2, URL: "/v2/users/42?fields=name", Method: "GET",
	Host: "example.com", RemoteAddr: "127.0.0.1:51234", Accept: "application/json", RequestID: "0af7651916cd43dd"}

var benchResp = frame.Response{Status: 200, ContentType: "text/plain; charset=utf-8", Body: []byte("hello from upstream\n")}

func BenchmarkRequestAppend(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 512)
	for b.Loop() {
		buf = frame.Begin(buf[:0])
		buf = benchReq.Append(buf)
		_ = frame.End(buf, frame.DefaultMaxSize)
	}
}

func BenchmarkRequestUnmarshal(b *testing.B) {
	b.ReportAllocs()
	p := benchReq.Append(nil)
	var m frame.Request
	for b.Loop() {
		if err := m.Unmarshal(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResponseAppend(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 512)
	for b.Loop() {
		buf = benchResp.Append(frame.Begin(buf[:0]))
		_ = frame.End(buf, frame.DefaultMaxSize)
	}
}

func BenchmarkResponseUnmarshal(b *testing.B) {
	b.ReportAllocs()
	p := benchResp.Append(nil)
	var m frame.Response
	for b.Loop() {
		if err := m.Unmarshal(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRead reads one small frame from a reader, with and without a
// reused buffer.
func BenchmarkRead(b *testing.B) {
	f := benchResp.Append(frame.Begin(nil))
	_ = frame.End(f, frame.DefaultMaxSize)
	var r bytes.Reader
	b.Run("pool", func(b *testing.B) {
		b.ReportAllocs()
		var pool frame.Pool
		for b.Loop() {
			r.Reset(f)
			bp := pool.Get()
			p, err := frame.Read(&r, *bp, frame.DefaultMaxSize)
			if err != nil {
				b.Fatal(err)
			}
			*bp = p
			pool.Put(bp)
		}
	})
	b.Run("nopool", func(b *testing.B) {
		b.ReportAllocs()
		var pool *frame.Pool
		for b.Loop() {
			r.Reset(f)
			bp := pool.Get()
			p, err := frame.Read(&r, *bp, frame.DefaultMaxSize)
			if err != nil {
				b.Fatal(err)
			}
			*bp = p
			pool.Put(bp)
		}
	})
}
