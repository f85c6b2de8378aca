package shed

import "net/http"

// Handler returns a handler that admits a request to next only if
// TryAcquire succeeds for it, and calls Release exactly once when next
// returns or panics (http.ErrAbortHandler included; the panic goes on to
// net/http unchanged). Requests for which Options.Exempt returns true go
// to next without being counted.
//
// A refused request never reaches next. By default it gets 503 Service
// Unavailable with Retry-After (whole seconds), Content-Type text/plain, a
// short fixed body and, with Options.CloseConnection, Connection: close.
// The default refusal allocates nothing and logs nothing: its header
// values are preformatted and shared by every refusal, so middleware
// wrapping the Shedder may replace them (Header().Set) but must not write
// into them in place. With Options.Reject, Retry-After and Connection:
// close are set on w with values of the request's own, and Reject writes
// the rest.
//
// With Options.Priority, a request is admitted as by TryAcquireLevel with
// its level, and a refusal also carries the level refused in the header
// priority.DefaultHeader ("Frontdoor-Priority: sheddable"), set before
// Reject is called so that Reject can read it.
//
// Admitted requests reach next with the original ResponseWriter and
// Request, so every optional interface of the writer survives.
func (s *Shedder) Handler(next http.Handler) http.Handler {
	if s.levels != nil {
		return s.levelHandler(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.exempt != nil && s.exempt(r) {
			s.exempted.Add(1)
			next.ServeHTTP(w, r)
			return
		}
		if !s.TryAcquire() {
			s.refuse(w, r)
			return
		}
		if s.ctl != nil {
			defer s.release(s.ctl.Start(s.admitted.Load()), r.Context())
		} else {
			defer s.Release()
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers a refused request: the shared default, or Reject on
// header values of this request's own, since user code may change them in
// place.
func (s *Shedder) refuse(w http.ResponseWriter, r *http.Request) {
	if s.reject == nil {
		s.refusal.Write(w)
		return
	}
	s.refusal.SetHeaders(w.Header())
	s.reject.ServeHTTP(w, r)
}
