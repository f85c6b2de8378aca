// Package typed provides the two ends of the typedproxy example: Front,
// an http.Handler that forwards each HTTP request as a typed, length-
// prefixed protobuf frame over a bounded pool of reused TCP connections,
// and Server, the upstream that reads those frames, runs a handler and
// answers with framed responses. The wire format is package frame.
//
// Front is an ordinary http.Handler, so frontdoor's middlewares wrap it
// like any other:
//
//	var inFlight inflight.Counter
//	front := typed.NewFront(typed.FrontOptions{Addr: "127.0.0.1:9000"})
//	defer front.Close()
//	http.ListenAndServe(":8080", inflight.Track(&inFlight)(front))
//
// and the upstream:
//
//	srv := &typed.Server{Handler: func(w *frame.Response, r *frame.Request) {
//		w.ContentType = "text/plain; charset=utf-8"
//		w.Body = []byte("hello\n")
//	}}
//	l, _ := net.Listen("tcp", "127.0.0.1:9000")
//	srv.Serve(l)
//
// The protocol is strictly one request, then one response, per connection
// at a time; connections are reused, never shared.
package typed
