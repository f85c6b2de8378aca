// Package bodybuffer provides a middleware that reads the whole request
// body before the handler runs, bounded in size and in time, and that never
// runs the handler for a client that gave up.
//
// It does in-process what a buffering reverse proxy (nginx
// proxy_request_buffering) does in front of a slow backend: a slow upload
// costs a goroutine and a buffer, never a handler slot, and the handler sees
// only complete bodies from clients that are still connected.
//
//	mux := http.NewServeMux()
//	mux.Handle("POST /render", render)
//	h := bodybuffer.Limit(1 << 20)(mux) // other bounds: the Options defaults
//
// Place it after shed and before concurrency, so refusals stay cheap and a
// render slot is taken only once the body is complete:
//
//	ping -> shed -> bodybuffer -> concurrency -> handler
//
// # Outcomes
//
// Checked in this order:
//
//   - body larger than MaxBytes: 413 Request Entity Too Large (a declared
//     Content-Length is refused before the first read, so no 100 Continue
//     is sent);
//   - no byte for IdleTimeout, an average rate below MinRate once
//     MinRateGrace has passed, past Timeout, or past the request
//     context's deadline: 408 Request Timeout;
//   - client gone (connection closed, stream reset): nothing is written
//     and next does not run; the request is only counted. A client is
//     gone when its request context was canceled as net/http cancels it
//     then (with no cause of its own) and the ResponseWriter, or one it
//     unwraps to, reports the close through http.CloseNotifier, as
//     net/http's own writers do;
//   - request context canceled otherwise, its client still connected
//     (the server's BaseContext, a middleware outside): 503 Service
//     Unavailable with Retry-After: 1, never an answer from nobody, once
//     the writer has had up to 50 ms to report a close;
//   - body truncated or malformed (unexpected EOF, bad chunked framing,
//     body shorter or longer than its Content-Length): 400 Bad Request;
//   - a temporary file for a large body cannot be written: 500;
//   - otherwise next runs with the buffered body.
//
// A refusal has Content-Type: text/plain; charset=utf-8,
// X-Content-Type-Options: nosniff and a short fixed body, unless
// Options.Reject writes it; Cause tells a Reject handler why. On HTTP/1.x
// every refusal carries Connection: close and the connection closes
// shortly after the response (what is left of the body cannot frame the
// next request): net/http may still read the rest of the body for a short
// grace, so that a client still uploading reads the answer rather than a
// reset, however slowly it sends. On HTTP/2 only the refused stream ends;
// the connection and its other streams go on (no GOAWAY).
//
// Requests with no body, CONNECT and Upgrade requests, gRPC,
// text/event-stream and those Options.Exempt picks pass to next untouched.
//
// # What next sees
//
// A shallow copy of the request: the caller's *http.Request is never
// modified. Its Body reads the complete body from memory or from an
// unlinked temporary file; ContentLength is its length, TransferEncoding
// is nil, and GetBody returns a fresh reader over the same bytes. The body
// stays valid for as long as anyone reads it: next may hand it on (to an
// http.Transport, which may read and close it after next returned). Once
// next has returned, a read already in progress completes, a read that
// starts later fails with an error, and the memory and the file are
// released when the last read in progress ends, never while one can still
// see them. Files of a multipart form that next parses are removed when
// it returns. The ResponseWriter reaches next untouched, so every optional
// interface survives.
//
// Body memory comes from pools of power-of-two size classes and is bounded
// by MemBytes per body; a declared Content-Length alone never makes the
// middleware allocate more than a bounded first buffer.
//
// # Time bounds
//
// IdleTimeout, MinRate, Timeout and the request context's deadline are
// enforced as a read deadline set through http.ResponseController
// (SetReadDeadline): net/http's own ResponseWriter supports it for HTTP/1
// and HTTP/2, and so does any wrapper with an Unwrap method. With a
// writer that does not, bodies are read with no time bound (a context
// deadline still turns into 408 once the read ends). These deadlines
// replace http.Server.ReadTimeout for the body; the read deadline is
// cleared once the body is complete.
package bodybuffer
