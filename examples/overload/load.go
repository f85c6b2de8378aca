package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// poisson is an open-loop vegeta.Pacer with exponentially distributed gaps
// between arrivals (a Poisson process) at rate per second.
type poisson struct {
	rate float64
	rng  *rand.Rand
	n    uint64        // arrivals drawn so far
	at   time.Duration // time of arrival n
}

func (p *poisson) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	for p.n <= hits {
		p.at += time.Duration(p.rng.ExpFloat64() / p.rate * float64(time.Second))
		p.n++
	}
	return max(p.at-elapsed, 0), false
}

func (p *poisson) Rate(time.Duration) float64 { return p.rate }

// outcome summarizes one attack.
type outcome struct {
	sent, counted, served, refused, timeouts, errs int             // counted: sent after the warm-up
	secs, window                                   float64         // seconds of the attack, of its goodput window
	goodput                                        float64         // 2xx/s completed in the steady window
	okEnds                                         []time.Duration // completion times of the 2xx, from the first request
	serverCPU, genCPU, otherCPU                    float64         // cores used on average by the server, this process, the rest
	servedLat, refusedLat                          []time.Duration

	// With two classes (the prio scenario): per class, 0 sheddable and 1
	// critical, and the seconds with a critical failure beside a
	// sheddable success.
	classes [2]classOutcome
	mixed   int
}

// pct returns n as a percentage of the requests sent after the warm-up.
func (o *outcome) pct(n int) float64 {
	if o.counted == 0 {
		return 0
	}
	return 100 * float64(n) / float64(o.counted)
}

// quantile returns the q-quantile of d (sorted in place), 0 if empty.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(math.Ceil(q*float64(len(d)))) - 1
	return d[max(i, 0)]
}

// attack drives open-loop Poisson load at rate/s against url for dur with
// a client timeout; workers caps the clients in flight (0: no cap). The
// requests are GETs, or POSTs of body if it is not nil, or, if crit > 0,
// GETs of two classes, critical with probability crit (classTargeter).
// Goodput counts the 2xx completed between warm and dur.
func attack(url string, rate float64, dur, warm, timeout time.Duration, workers uint64, body []byte, crit float64, seed uint64) outcome {
	opts := []func(*vegeta.Attacker){vegeta.Timeout(timeout), vegeta.KeepAlive(true), vegeta.MaxBody(0)}
	if workers > 0 {
		opts = append(opts, vegeta.Workers(workers), vegeta.MaxWorkers(workers), vegeta.Connections(int(workers)))
	}
	a := vegeta.NewAttacker(opts...)
	target := vegeta.Target{Method: "GET", URL: url}
	if body != nil {
		target.Method, target.Body = "POST", body
	}
	tr := vegeta.NewStaticTargeter(target)
	if crit > 0 {
		tr = classTargeter(url, crit, seed)
	}
	critFailed, shedServed := map[int]bool{}, map[int]bool{}
	p := &poisson{rate: rate, rng: rand.New(rand.NewPCG(seed, 0))}
	var o outcome
	// Goodput counts 2xx that complete inside the attack, after the
	// warm-up: not the tail served after the load stopped. The other
	// outcomes count the requests sent after the warm-up.
	var began time.Time
	from, to := warm, dur
	inWindow := 0
	for r := range a.Attack(tr, p, dur, "") {
		if o.sent == 0 {
			began = r.Timestamp
		}
		o.sent++
		if r.Timestamp.Sub(began) < from {
			// Sent during the warm-up: only its completion may count,
			// towards goodput; outcomes and latencies are the steady
			// state's.
			if r.Code >= 200 && r.Code < 300 {
				end := r.End().Sub(began)
				if end >= from && end <= to {
					inWindow++
				}
				o.okEnds = append(o.okEnds, end)
			}
			continue
		}
		o.counted++
		class := classOf(r.URL)
		var c *classOutcome
		if class >= 0 {
			c = &o.classes[class]
			c.sent++
		}
		sec := int(r.Timestamp.Sub(began) / time.Second)
		switch {
		case r.Code >= 200 && r.Code < 300:
			if c != nil {
				c.served++
				c.servedLat = append(c.servedLat, r.Latency)
				if class == 0 {
					shedServed[sec] = true
				}
			}
			end := r.End().Sub(began)
			if end >= from && end <= to {
				inWindow++
			}
			o.okEnds = append(o.okEnds, end)
			o.served++
			o.servedLat = append(o.servedLat, r.Latency)
		case r.Code == http.StatusServiceUnavailable || r.Code == http.StatusTooManyRequests:
			o.refused++
			o.refusedLat = append(o.refusedLat, r.Latency)
			if c != nil {
				c.refused++
				critFailed[sec] = critFailed[sec] || class == 1
			}
		case strings.Contains(r.Error, "Client.Timeout") || strings.Contains(r.Error, "deadline exceeded"):
			o.timeouts++
			if c != nil {
				c.timeouts++
				critFailed[sec] = critFailed[sec] || class == 1
			}
		default:
			o.errs++
			if c != nil {
				c.errs++
			}
		}
	}
	for s, failed := range critFailed {
		if !failed {
			delete(critFailed, s)
		}
	}
	o.mixed = mixedSeconds(critFailed, shedServed)
	o.secs = dur.Seconds()
	o.window = (to - from).Seconds()
	o.goodput = float64(inWindow) / o.window
	return o
}

// closedLoop measures capacity: n clients send back to back for dur
// (GETs, or POSTs of body if it is not nil); it returns 2xx responses per
// second.
func closedLoop(url string, n int, dur time.Duration, body []byte) float64 {
	tr := &http.Transport{MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var mu sync.Mutex
	ok := 0
	var wg sync.WaitGroup
	began := time.Now()
	from := dur / 5
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				var req *http.Request
				if body != nil {
					req, _ = http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
				} else {
					req, _ = http.NewRequestWithContext(ctx, "GET", url, nil)
				}
				resp, err := client.Do(req)
				if err != nil {
					if errors.Is(err, context.DeadlineExceeded) {
						return
					}
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode/100 == 2 && time.Since(began) >= from {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return float64(ok) / (time.Since(began) - from).Seconds()
}
