package main

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// A latency histogram with 2% wide buckets from 1µs to minutes, so the
// results of several runs merge exactly.
const (
	histBuckets = 1000
	histGrowth  = 1.02
)

func bucketOf(d time.Duration) int {
	us := float64(d) / float64(time.Microsecond)
	if us <= 1 {
		return 0
	}
	return min(int(math.Log(us)/math.Log(histGrowth)), histBuckets-1)
}

// loadResult is what one load run reports to the parent, as JSON.
type loadResult struct {
	Requests uint64        // completed with 200 inside the measured window
	Errors   uint64        // transport errors or other statuses
	Elapsed  time.Duration // measured window
	Hist     []uint64      // latency histogram, histBuckets wide
}

func (r *loadResult) add(o loadResult) {
	if r.Hist == nil {
		r.Hist = make([]uint64, histBuckets)
	}
	r.Requests += o.Requests
	r.Errors += o.Errors
	r.Elapsed += o.Elapsed
	for i, n := range o.Hist {
		r.Hist[i] += n
	}
}

// quantile returns the upper bound of the bucket holding quantile q.
func (r *loadResult) quantile(q float64) time.Duration {
	var total uint64
	for _, n := range r.Hist {
		total += n
	}
	want := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i, n := range r.Hist {
		seen += n
		if seen >= want && n > 0 {
			return time.Duration(math.Pow(histGrowth, float64(i+1)) * float64(time.Microsecond))
		}
	}
	return 0
}

// runLoad drives a closed loop: conc workers, each sending GET url and
// reading the answer, one at a time, for warmup and then for d. It prints
// a loadResult for the window after warmup.
//
// With raw set, each worker uses a rawClient on its own connection;
// otherwise all share a net/http Client.
func runLoad(url string, conc int, warmup, d time.Duration, raw bool) error {
	client := &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, DisableCompression: true,
	}}
	defer client.CloseIdleConnections()
	get := func() error {
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = errNotOK
		}
		return err
	}
	start := time.Now().Add(warmup)
	end := start.Add(d)
	var ok, bad atomic.Uint64
	hists := make([][]uint64, conc)
	var wg sync.WaitGroup
	for w := range conc {
		hist := make([]uint64, histBuckets)
		hists[w] = hist
		get := get
		if raw {
			rc, err := newRawClient(url)
			if err != nil {
				return err
			}
			defer rc.close()
			get = rc.get
		}
		wg.Go(func() {
			for {
				t0 := time.Now()
				if !t0.Before(end) {
					return
				}
				err := get()
				t1 := time.Now()
				if t0.Before(start) || t1.After(end) {
					continue
				}
				if err != nil {
					bad.Add(1)
					continue
				}
				ok.Add(1)
				hist[bucketOf(t1.Sub(t0))]++
			}
		})
	}
	wg.Wait()
	res := loadResult{Requests: ok.Load(), Errors: bad.Load(), Elapsed: d}
	for _, h := range hists {
		res.add(loadResult{Hist: h})
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}
