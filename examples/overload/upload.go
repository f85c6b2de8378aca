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
func (s *server) uploadHandler() http.Handler {
	var reads bodyReads
	var big atomic.Int64
	s.report(func(st *serverStats) {
		st.Handled, st.ReadNanos = reads.handled.Load(), reads.nanos.Load()
		st.MaxReadNanos, st.SlowReads = reads.maxNanos.Load(), reads.slow.Load()
		st.BigHandled = big.Load()
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
		sum := render(s.iters)
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
func uploadChain(s *server, h http.Handler) (http.Handler, error) {
	switch s.variant {
	case "none":
		return h, nil
	case "concurrency", "bodybuffer", "frontdoor", "split":
	default:
		return nil, fmt.Errorf("scenario upload: unknown variant %q", s.variant)
	}
	l := concurrency.New(concurrency.Options{
		Limit: s.limit, MaxQueue: s.backlog, QueueTimeout: s.queueTimeout,
	})
	s.report(func(st *serverStats) {
		x := l.Stats()
		st.Admitted, st.Refused, st.Abandoned = x.Admitted, x.Refused, x.Abandoned
	})
	h = l.Handler(h)
	if s.variant == "concurrency" {
		return h, nil
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
	s.report(func(st *serverStats) {
		x := bb.Stats()
		st.Buffered, st.BufTimedOut, st.BufClientGone = x.Buffered, x.TimedOut, x.ClientGone
		st.BufTruncated, st.BufBytes, st.BufMemPeak = x.Truncated, x.Bytes, x.MemPeak
		st.BigIn = bigIn.Load()
	})
	h = bb.Handler(h)
	if s.variant == "bodybuffer" {
		return h, nil
	}
	if s.variant == "split" {
		return splitShed(s, h), nil
	}
	sh := shed.New(shed.Options{Limit: uploadShedLimit(s.serverConfig)})
	s.report(func(st *serverStats) {
		x := sh.Stats()
		st.ShedAdmitted, st.Shed, st.ShedPeak = x.Admitted, x.Refused, x.Peak
	})
	return sh.Handler(h), nil
}

// splitShed puts two Shedders in front of h, each with uploadShedLimit:
// one for requests with a body over bigBody (uploads), one for the rest,
// so that uploads, which hold their place for as long as their body
// takes, cannot take the places of short requests.
func splitShed(s *server, h http.Handler) http.Handler {
	short := shed.New(shed.Options{Limit: uploadShedLimit(s.serverConfig)})
	long := shed.New(shed.Options{Limit: uploadShedLimit(s.serverConfig)})
	s.report(func(st *serverStats) {
		a, b := short.Stats(), long.Stats()
		st.ShedAdmitted, st.Shed, st.ShedPeak = a.Admitted+b.Admitted, a.Refused+b.Refused, max(a.Peak, b.Peak)
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
