package typed_test

import (
	"net"
	"testing"

	"go.uber.org/goleak"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/typed"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// upstream starts a typed Server on an ephemeral loopback port, wrapping
// its listener with wrap if not nil, and closes it when the test ends.
func upstream(t testing.TB, h typed.HandlerFunc, wrap func(net.Listener) net.Listener) (*typed.Server, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if wrap != nil {
		l = wrap(l)
	}
	s := &typed.Server{Handler: h}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(l)
	}()
	t.Cleanup(func() {
		s.Close()
		<-done
	})
	return s, addr
}

// front returns a Front for o, closed when the test ends.
func front(t testing.TB, o typed.FrontOptions) *typed.Front {
	t.Helper()
	f := typed.NewFront(o)
	t.Cleanup(func() { f.Close() })
	return f
}
