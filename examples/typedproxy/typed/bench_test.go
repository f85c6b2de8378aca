package typed_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
	"github.com/frontdoor-go/frontdoor/examples/typedproxy/typed"
)

var hello = []byte("hello from upstream\n")

// BenchmarkRoundTrip sends one request through each proxy to the same
// upstream work, over loopback, from parallel clients: the direct HTTP
// upstream as the baseline, httputil.ReverseProxy with keep-alive as the
// peer, and the typed front with and without its buffer pool. Allocations
// are the whole process's: client, proxy and upstream.
func BenchmarkRoundTrip(b *testing.B) {
	httpUp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = []string{"text/plain; charset=utf-8"}
		w.Write(hello)
	}))
	defer httpUp.Close()
	_, typedAddr := upstream(b, func(w *frame.Response, r *frame.Request) {
		w.ContentType = "text/plain; charset=utf-8"
		w.Body = hello
	}, nil)

	target, _ := url.Parse(httpUp.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rpTransport := &http.Transport{MaxIdleConnsPerHost: 64, DialContext: (&net.Dialer{}).DialContext}
	defer rpTransport.CloseIdleConnections()
	rp.Transport = rpTransport

	variants := []struct {
		name string
		h    http.Handler
		url  string
	}{
		{"direct", nil, httpUp.URL},
		{"reverseproxy", rp, ""},
		{"typed", front(b, typed.FrontOptions{Addr: typedAddr}), ""},
		{"typed-nopool", front(b, typed.FrontOptions{Addr: typedAddr, NoBufferPool: true}), ""},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			u := v.url
			if v.h != nil {
				srv := httptest.NewServer(v.h)
				defer srv.Close()
				u = srv.URL
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			defer client.CloseIdleConnections()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Get(u + "/v1/hello")
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
		})
	}
}

// BenchmarkFrontHandler measures the front alone (recorder in, real
// upstream out): the allocations of the proxy's own request path.
func BenchmarkFrontHandler(b *testing.B) {
	_, addr := upstream(b, func(w *frame.Response, r *frame.Request) { w.Body = hello }, nil)
	for _, nopool := range []bool{false, true} {
		name := "pool"
		if nopool {
			name = "nopool"
		}
		b.Run(name, func(b *testing.B) {
			f := front(b, typed.FrontOptions{Addr: addr, NoBufferPool: nopool})
			r := httptest.NewRequest("GET", "/v1/hello", nil)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					w := httptest.NewRecorder()
					f.ServeHTTP(w, r)
					if w.Code != 200 {
						b.Errorf("status %d", w.Code)
						return
					}
				}
			})
		})
	}
}
