// Package frame provides the wire format of the typedproxy example:
// length-prefixed frames carrying two protobuf messages, Request and
// Response, encoded by hand with google.golang.org/protobuf/encoding/protowire.
//
// A frame is a 4-byte unsigned length in big-endian (network) byte order,
// followed by that many bytes of payload. The payload is one protobuf
// message; its schema is in messages.proto, and any protobuf runtime that
// reads that schema reads these bytes. A reader refuses a frame longer than
// its maximum before allocating for it.
//
// Writing a request frame into a pooled buffer:
//
//	var pool frame.Pool
//	bp := pool.Get()
//	f := frame.Begin((*bp)[:0])
//	f = req.Append(f)
//	if err := frame.End(f, frame.DefaultMaxSize); err != nil {
//		// too large
//	}
//	_, err := conn.Write(f)
//	*bp = f
//	pool.Put(bp)
//
// Reading one back:
//
//	payload, err := frame.Read(br, (*bp)[:0], frame.DefaultMaxSize)
//	if err == nil {
//		err = resp.Unmarshal(payload)
//	}
package frame
