package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
	"github.com/frontdoor-go/frontdoor/examples/typedproxy/typed"
)

// The upstream work, the same whichever protocol asks for it: a fixed
// short body, as in the original measurement.
var (
	workType = "text/plain; charset=utf-8"
	workBody = []byte("hello from upstream\n")
)

// runUpstream serves the work over HTTP and over typed TCP on ephemeral
// loopback ports, prints both addresses, and exits when stdin closes (the
// parent ended).
func runUpstream() error {
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = []string{workType}
			w.Write(workBody)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	ts := &typed.Server{Handler: func(w *frame.Response, r *frame.Request) {
		w.ContentType = workType
		w.Body = workBody
	}}
	go hs.Serve(hl)
	go ts.Serve(tl)
	fmt.Printf("http %s\ntyped %s\n", hl.Addr(), tl.Addr())
	io.Copy(io.Discard, os.Stdin)
	hs.Close()
	return ts.Close()
}

// upstreamProcess is the running upstream child.
type upstreamProcess struct {
	httpAddr, typedAddr string
	pid                 int
	stop                func()
}

// cpuTime returns the upstream's user and system CPU time so far, from
// /proc (Linux; 0 elsewhere), in clock ticks of 10ms.
func (u *upstreamProcess) cpuTime() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", u.pid))
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name; utime and stime are
	// the 14th and 15th fields of the whole line.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

func startUpstream(self string) (*upstreamProcess, error) {
	cmd := newChild(self, "-role=upstream")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	u := &upstreamProcess{pid: cmd.Process.Pid, stop: func() {
		stdin.Close()
		cmd.Wait()
	}}
	sc := bufio.NewScanner(stdout)
	for _, dst := range []*string{&u.httpAddr, &u.typedAddr} {
		var name string
		if !sc.Scan() {
			u.stop()
			return nil, fmt.Errorf("upstream did not report its addresses: %v", sc.Err())
		}
		fmt.Sscan(sc.Text(), &name, dst)
	}
	return u, nil
}
