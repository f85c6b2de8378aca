package bodybuffer

import (
	"context"
	"errors"
	"math"
	"net/http"
	"time"
)

// limits are the time bounds of one body read, from Options.
type limits struct {
	idle  time.Duration // between two reads; 0: none
	total time.Duration // whole body; 0: none
	rate  int64         // minimum average bytes per second; 0: none
	grace time.Duration // before the rate applies
}

// deadline sets the connection's (or HTTP/2 stream's) read deadline
// through http.ResponseController to the earliest of: the idle bound
// between two reads (nginx's client_body_timeout), the moment the
// average rate since the start falls below the minimum once the grace
// period is over (Kestrel's MinRequestBodyDataRate), the total deadline,
// and the request context's deadline.
//
// Setting a deadline on HTTP/2 sends a message to the connection's serve
// loop, so it is refreshed lazily: a deadline already set is kept while
// it lies no earlier than the bound (it may never fire early), and a new
// idle deadline is set to idle + idle/8 from now. The wait allowed between
// two reads is thus between idle and 9/8 idle, and a fast body sets it a
// few times at most.
type deadline struct {
	rc    http.ResponseController
	lim   *limits
	begun time.Time // when reading started
	end   time.Time // total or context deadline; zero: none
	set   time.Time // deadline currently set; zero: none
	off   bool      // no bound, or the writer cannot set read deadlines
}

func (d *deadline) start(w http.ResponseWriter, ctx context.Context, lim *limits) {
	d.rc = *http.NewResponseController(w)
	d.lim = lim
	if lim.total > 0 {
		d.begun = time.Now()
		d.end = d.begun.Add(lim.total)
	}
	if t, ok := ctx.Deadline(); ok && (d.end.IsZero() || t.Before(d.end)) {
		d.end = t
	}
	d.off = lim.idle == 0 && lim.rate == 0 && d.end.IsZero()
}

// refresh is called before each read, with n bytes read so far.
func (d *deadline) refresh(n int64) {
	if d.off {
		return
	}
	now := time.Now()
	if d.begun.IsZero() {
		d.begun = now // the first read
	}
	var due, next time.Time // the bound, and the deadline to set
	if d.lim.idle > 0 {
		due, next = now.Add(d.lim.idle), now.Add(d.lim.idle+d.lim.idle/8)
	}
	if d.lim.rate > 0 {
		if r, ok := d.rateDue(n); ok {
			due, next = earlier(due, r), earlier(next, r)
		}
	}
	if !d.end.IsZero() {
		due, next = earlier(due, d.end), earlier(next, d.end)
	}
	switch {
	case due.IsZero():
		// No bound any more (the rate needs none for so many bytes).
		if !d.set.IsZero() {
			d.apply(time.Time{})
		}
	case d.set.IsZero() || d.set.Before(due):
		d.apply(next)
	}
}

// rateDue is when the average rate of n bytes since the start falls below
// the minimum: the end of the grace period, or n/rate seconds after the
// start. ok is false when that lies beyond any practical bound.
func (d *deadline) rateDue(n int64) (time.Time, bool) {
	secs := n / d.lim.rate
	if secs > math.MaxInt32 {
		return time.Time{}, false
	}
	after := time.Duration(secs)*time.Second + time.Duration(n%d.lim.rate)*time.Second/time.Duration(d.lim.rate)
	return d.begun.Add(max(after, d.lim.grace)), true
}

// earlier returns the earlier of a and b, where zero means none.
func earlier(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
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
