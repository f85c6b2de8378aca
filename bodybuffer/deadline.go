package bodybuffer

import (
	"errors"
	"net/http"
	"time"
)

// deadline sets the connection's (or HTTP/2 stream's) read deadline
// through http.ResponseController: an idle bound between two reads, like
// nginx's client_body_timeout, capped by an optional total deadline.
//
// Setting a deadline on HTTP/2 sends a message to the connection's serve
// loop, so it is refreshed lazily: only once less than idle remains, and
// then to idle + idle/8 from now. The wait allowed between two reads is
// thus between idle and 9/8 idle, and a fast body sets it once.
type deadline struct {
	rc   http.ResponseController
	idle time.Duration
	end  time.Time // total deadline; zero: none
	set  time.Time // deadline currently set; zero: none
	off  bool      // the writer cannot set read deadlines
}

func (d *deadline) start(w http.ResponseWriter, idle, total time.Duration) {
	d.rc = *http.NewResponseController(w)
	d.idle = idle
	d.off = idle == 0 && total == 0
	if total > 0 {
		d.end = time.Now().Add(total)
	}
}

// refresh is called before each read.
func (d *deadline) refresh() {
	if d.off {
		return
	}
	var next time.Time
	if d.idle > 0 {
		now := time.Now()
		if !d.set.IsZero() && d.set.Sub(now) >= d.idle {
			return
		}
		next = now.Add(d.idle + d.idle/8)
	}
	if !d.end.IsZero() && (next.IsZero() || next.After(d.end)) {
		next = d.end
	}
	if next.Equal(d.set) {
		return
	}
	d.apply(next)
}

// clear removes the deadline once the body is read: left in place, it
// would fire during the server's background read after EOF, cancel the
// request context and break the connection (golang/go#70834).
func (d *deadline) clear() {
	if !d.off && !d.set.IsZero() {
		d.apply(time.Time{})
	}
}

func (d *deadline) apply(t time.Time) {
	if err := d.rc.SetReadDeadline(t); err != nil {
		if errors.Is(err, http.ErrNotSupported) {
			d.off = true
		}
		return
	}
	d.set = t
}
