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
//	h := bodybuffer.Limit(1 << 20)(mux) // 1 MiB, 60 s idle, 240 bytes/s after 5 s
//
// Place it after shed and before concurrency, so refusals stay cheap and a
// render slot is taken only once the body is complete:
//
//	ping -> shed -> bodybuffer -> concurrency -> handler
//
// Outcomes, checked in this order:
//
//   - body larger than MaxBytes: 413 (a declared Content-Length is refused
//     before the first read, so no 100 Continue is sent);
//   - no byte for IdleTimeout, an average rate below MinRate once
//     MinRateGrace has passed, past Timeout, or past the request
//     context's deadline: 408;
//   - client gone (connection closed, stream reset, context canceled):
//     nothing is written, it is only counted;
//   - body truncated or malformed (unexpected EOF, bad chunked framing,
//     body shorter than its Content-Length): 400;
//   - otherwise the handler runs with the buffered body.
//
// On HTTP/1.x every refusal closes the connection (Connection: close):
// what is left of the body cannot frame the next request. On HTTP/2 only
// the stream ends.
package bodybuffer
