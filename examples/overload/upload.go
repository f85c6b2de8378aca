package main

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/frontdoor-go/frontdoor/bodybuffer"
	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/shed"
)

// serverStats is what a child server reports on stdout, as one JSON line,
// when it stops. Fields a variant does not have stay zero.
type serverStats struct {
	Handled      int64 // handler runs (upload scenario)
	ReadNanos    int64 // handler time spent reading the request body
	MaxReadNanos int64 // longest body read of one handler run
	SlowReads    int64 // body reads that took over 10 ms

	Admitted, Refused, Abandoned uint64 // concurrency

	Buffered, BufTimedOut, BufClientGone, BufTruncated uint64 // bodybuffer
	BufBytes                                           uint64
	BufMemPeak                                         int64

	ShedAdmitted, Shed uint64 // shed
	ShedPeak           int64

	// Uploads (bodies over bigBody) that reached concurrency, and that the
	// handler ran for: behind bodybuffer, the difference was read in full
	// and then refused.
	BigIn, BigHandled int64
}

// bigBody tells a slow upload from a normal client's body by its size.
const bigBody = 64 << 10

// collect fills in a child's serverStats when it stops; each variant's
// constructor appends the readers of its counters.
var collect []func(*serverStats)

// bodyReads measures what the upload handler spends in its body read,
// that is how long it holds its render slot waiting on the client.
type bodyReads struct {
	handled, nanos, maxNanos, slow atomic.Int64
}

func (b *bodyReads) observe(d time.Duration) {
	b.handled.Add(1)
	b.nanos.Add(int64(d))
	if d > 10*time.Millisecond {
		b.slow.Add(1)
	}
	for {
		m := b.maxNanos.Load()
		if int64(d) <= m || b.maxNanos.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// uploadHandler is the upload scenario's handler: it reads the whole body
// with io.ReadAll, as a handler does that decodes its input, then renders.
// Behind concurrency alone the read happens inside the render slot.
func (c serverConfig) uploadHandler() http.Handler {
	var reads bodyReads
	var big atomic.Int64
	collect = append(collect, func(s *serverStats) {
		s.Handled, s.ReadNanos = reads.handled.Load(), reads.nanos.Load()
		s.MaxReadNanos, s.SlowReads = reads.maxNanos.Load(), reads.slow.Load()
		s.BigHandled = big.Load()
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		body, err := io.ReadAll(r.Body)
		reads.observe(time.Since(start))
		if err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		if len(body) > bigBody {
			big.Add(1)
		}
		sum := render(c.iters)
		fmt.Fprintf(w, "%x %d\n", sum[:4], len(body))
	})
}

// uploadChain returns the upload scenario's protection, one of three
// chains around the same handler:
//
//   - concurrency: concurrency alone;
//   - bodybuffer: bodybuffer → concurrency (the order of package doc
//     bodybuffer), so that a render slot is taken only once the body is in;
//   - frontdoor: shed → bodybuffer → concurrency, the documented
//     composition, with shed's limit from uploadShedLimit, so that an
//     upload past it is refused on its headers, before its body is read;
//   - split: as frontdoor, with one Shedder for uploads and one for the
//     other requests (splitShed).
func uploadChain(c serverConfig, h http.Handler) http.Handler {
	if c.headroom {
		reserveP(c)
	}
	l := concurrency.New(concurrency.Options{
		Limit: c.limit, MaxQueue: c.backlog, QueueTimeout: c.queueTimeout,
	})
	collect = append(collect, func(s *serverStats) {
		st := l.Stats()
		s.Admitted, s.Refused, s.Abandoned = st.Admitted, st.Refused, st.Abandoned
	})
	h = l.Handler(h)
	if c.variant == "concurrency" {
		return h
	}
	var bigIn atomic.Int64
	next := h
	h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > bigBody {
			bigIn.Add(1)
		}
		next.ServeHTTP(w, r)
	})
	bb := bodybuffer.New(bodybuffer.Options{
		MaxBytes: 1 << 20, IdleTimeout: 2 * time.Second, Timeout: 10 * time.Second,
	})
	collect = append(collect, func(s *serverStats) {
		st := bb.Stats()
		s.Buffered, s.BufTimedOut, s.BufClientGone = st.Buffered, st.TimedOut, st.ClientGone
		s.BufTruncated, s.BufBytes, s.BufMemPeak = st.Truncated, st.Bytes, st.MemPeak
		s.BigIn = bigIn.Load()
	})
	h = bb.Handler(h)
	if c.variant == "bodybuffer" {
		return h
	}
	if c.variant == "split" {
		return splitShed(c, h)
	}
	sh := shed.New(shed.Options{Limit: uploadShedLimit(c)})
	collect = append(collect, func(s *serverStats) {
		st := sh.Stats()
		s.ShedAdmitted, s.Shed, s.ShedPeak = st.Admitted, st.Refused, st.Peak
	})
	return sh.Handler(h)
}

// splitShed puts two Shedders in front of h, each with uploadShedLimit:
// one for requests with a body over bigBody (uploads), one for the rest,
// so that uploads, which hold their place for as long as their body
// takes, cannot take the places of short requests.
func splitShed(c serverConfig, h http.Handler) http.Handler {
	short := shed.New(shed.Options{Limit: uploadShedLimit(c)})
	long := shed.New(shed.Options{Limit: uploadShedLimit(c)})
	collect = append(collect, func(s *serverStats) {
		a, b := short.Stats(), long.Stats()
		s.ShedAdmitted, s.Shed, s.ShedPeak = a.Admitted+b.Admitted, a.Refused+b.Refused, max(a.Peak, b.Peak)
	})
	hs, hl := short.Handler(h), long.Handler(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > bigBody {
			hl.ServeHTTP(w, r)
			return
		}
		hs.ServeHTTP(w, r)
	})
}

// uploadShedLimit is shed's limit in the frontdoor variant. It follows
// from the configuration, as in examples/ssr, and is not tuned to the
// result: every render slot and queue place once, and as many again for
// requests whose body bodybuffer is still reading, 2 × (limit + queue).
func uploadShedLimit(c serverConfig) int {
	return 2 * (c.limit + c.backlog)
}
