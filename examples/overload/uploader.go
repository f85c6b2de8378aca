package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// uploadSpec describes the slow uploaders: bodies of size bytes sent in
// chunks with a pause of gap after each, at most max at once, each given
// up by the client after timeout.
type uploadSpec struct {
	size, chunk int
	gap         time.Duration
	timeout     time.Duration
	max         int
}

// uploadOutcome counts the slow uploads of one step.
type uploadOutcome struct {
	started, ok, refused, rejected, timeouts, errs, skipped int
	okInWindow                                              int // 2xx that ended between warm and dur
	okLat                                                   []time.Duration
}

// failed is every upload that neither completed nor got a 503.
func (o uploadOutcome) failed() int { return o.rejected + o.timeouts + o.errs }

// zeros is the content of every body chunk; it is only read.
var zeros = make([]byte, 64<<10)

// slowUploads starts slow uploads to addr (host:port) for dur as a
// Poisson process at rate per second, at most u.max at once (arrivals
// past that are skipped and counted), and waits until all have ended.
// Uploads answered 2xx between warm and dur count in okInWindow.
func slowUploads(addr string, rate float64, dur, warm time.Duration, u uploadSpec, seed uint64) uploadOutcome {
	var (
		o   uploadOutcome
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, u.max)
	)
	if rate <= 0 {
		return o
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	start := time.Now()
	at := time.Duration(0)
	for {
		at += time.Duration(rng.ExpFloat64() / rate * float64(time.Second))
		if at >= dur {
			break
		}
		time.Sleep(time.Until(start.Add(at)))
		select {
		case sem <- struct{}{}:
		default:
			o.skipped++
			continue
		}
		o.started++
		wg.Go(func() {
			defer func() { <-sem }()
			code, lat, err := slowUpload(addr, u)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && code/100 == 2:
				o.ok++
				o.okLat = append(o.okLat, lat)
				if end := time.Since(start); end >= warm && end <= dur {
					o.okInWindow++
				}
			case err == nil && code == http.StatusServiceUnavailable:
				o.refused++
			case err == nil:
				o.rejected++
			case errors.Is(err, os.ErrDeadlineExceeded):
				o.timeouts++
			default:
				o.errs++
			}
		})
	}
	wg.Wait()
	return o
}

// slowUpload sends one POST over a raw TCP connection: the headers with
// Content-Length u.size, then the body in chunks with pauses. It stops
// sending as soon as the server answers (a refusal comes before the body
// is read) and returns the status code and the time to the response.
func slowUpload(addr string, u uploadSpec) (int, time.Duration, error) {
	start := time.Now()
	conn, err := net.DialTimeout("tcp", addr, u.timeout)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	conn.SetDeadline(start.Add(u.timeout))
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/octet-stream\r\n"+
		"Content-Length: %d\r\nConnection: close\r\n\r\n", addr, u.size)
	if err != nil {
		return 0, 0, err
	}
	type result struct {
		code int
		err  error
	}
	answer := make(chan result, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			answer <- result{0, err}
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answer <- result{resp.StatusCode, nil}
	}()
	pause := time.NewTimer(u.gap)
	defer pause.Stop()
	for sent := 0; sent < u.size; {
		n := min(u.chunk, u.size-sent, len(zeros))
		if _, err := conn.Write(zeros[:n]); err != nil {
			break // the server answered and closed, or reset: read what it said
		}
		if sent += n; sent == u.size {
			break
		}
		pause.Reset(u.gap)
		select {
		case r := <-answer:
			return r.code, time.Since(start), r.err
		case <-pause.C:
		}
	}
	r := <-answer // bounded by the connection's deadline
	return r.code, time.Since(start), r.err
}
