package frame_test

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/frame"
)

func Example() {
	var pool frame.Pool
	var conn bytes.Buffer // stands in for a net.Conn

	// Write: header, payload, then the length into the header.
	bp := pool.Get()
	f := frame.Begin((*bp)[:0])
	f = (&frame.Request{Version: 2, Method: "GET", URL: "/v2/hello"}).Append(f)
	if err := frame.End(f, frame.DefaultMaxSize); err != nil {
		panic(err)
	}
	conn.Write(f)
	fmt.Printf("header % x, payload %d bytes\n", f[:frame.HeaderSize], len(f)-frame.HeaderSize)
	*bp = f
	pool.Put(bp)

	// Read it back.
	bp = pool.Get()
	payload, err := frame.Read(bufio.NewReader(&conn), *bp, frame.DefaultMaxSize)
	var req frame.Request
	if err == nil {
		err = req.Unmarshal(payload)
	}
	fmt.Println(req.Method, req.URL, req.Version, err)
	*bp = payload
	pool.Put(bp)
	// Output:
	// header 00 00 00 12, payload 18 bytes
	// GET /v2/hello 2 <nil>
}
