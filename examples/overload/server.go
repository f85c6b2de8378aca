package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// serverConfig is everything a child server needs; the parent passes it as
// flags so that each variant runs in a process of its own, with its own
// GOMAXPROCS, apart from the load generator's goroutines and GC.
type serverConfig struct {
	scenario     string
	variant      string
	limit        int           // slots: renders at once, or backend connections
	iters        int           // sha256 rounds of one render of mean cost (cpu, heavy, step, upload)
	sigma        float64       // heavy: σ of the lognormal render cost
	sleep        time.Duration // handler duration (sleep, cold)
	queueTimeout time.Duration // wait budget of every queue (chi's backlog, frontdoor's, failsafe-go's)
	backlog      int           // queue bound (chi backlog, frontdoor MaxQueue)
	procs        int           // GOMAXPROCS (set by the parent in the child's environment)
	profile      string        // write a CPU profile of the child to this file
}

// server is one child server being built: its configuration and the
// readers of the counters its variant reports when it stops.
type server struct {
	serverConfig
	collect []func(*serverStats) // fill in serverStats when the server stops
	debug   func() any           // the variant's counters for OVERLOAD_DEBUG, if any
}

// report registers f to fill in the server's stats when it stops.
func (s *server) report(f func(*serverStats)) { s.collect = append(s.collect, f) }

// stats reads every counter registered with report.
func (s *server) stats() serverStats {
	var st serverStats
	for _, f := range s.collect {
		f(&st)
	}
	return st
}

// build returns the server's handler: the scenario's handler wrapped in the
// variant's protection.
func (s *server) build() (http.Handler, error) {
	h := s.handler()
	if s.scenario == "upload" {
		return uploadChain(s, h)
	}
	v, ok := variants[s.variant]
	if !ok {
		return nil, fmt.Errorf("unknown variant %q", s.variant)
	}
	return v.wrap(s, h), nil
}

// ioBound reports whether the scenario's handler waits (holds no P) rather
// than computes.
func ioBound(scenario string) bool { return scenario == "sleep" || scenario == "cold" }

// render burns CPU: iters rounds of sha256 over its own output.
func render(iters int) [32]byte {
	var sum [32]byte
	for range iters {
		sum = sha256.Sum256(sum[:])
	}
	return sum
}

// lognormal returns a draw from the lognormal distribution of mean 1 and
// shape sigma (σ of the underlying normal): exp(σZ − σ²/2).
// norm draws from the standard normal distribution (rand.NormFloat64, or
// a seeded generator's in tests).
func lognormal(norm func() float64, sigma float64) float64 {
	return math.Exp(sigma*norm() - sigma*sigma/2)
}

// stratified returns a sequence of standard normal values that a run of n
// consecutive ones covers evenly: the k-th is the normal quantile of
// frac(k/φ), a low-discrepancy sequence. Random draws would let the mean
// cost of the renders in a step of a few seconds stray by several percent
// from the mean (the heavy tail is made of rare draws), and the goodput
// with it, whatever the variant; with this sequence every step, and every
// capacity measurement, renders the same mix.
func stratified() func() float64 {
	var k atomic.Uint64
	return func() float64 {
		_, u := math.Modf(float64(k.Add(1)) * (math.Sqrt(5) - 1) / 2)
		return math.Sqrt2 * math.Erfinv(2*u-1)
	}
}

// handler returns the scenario's handler, unprotected.
func (s *server) handler() http.Handler {
	switch {
	case s.scenario == "upload":
		return s.uploadHandler()
	case s.scenario == "heavy":
		// Render costs of mean iters with a heavy (lognormal) tail: most
		// renders are cheap, a few cost many times the mean.
		norm := stratified()
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := int(float64(s.iters) * lognormal(norm, s.sigma))
			sum := render(max(n, 1))
			fmt.Fprintf(w, "%x\n", sum[:4])
		})
	case ioBound(s.scenario):
		// Each request holds one of limit backend connections.
		backend := make(chan struct{}, s.limit)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case backend <- struct{}{}:
			case <-r.Context().Done():
				return
			}
			time.Sleep(s.sleep)
			<-backend
			w.Write([]byte("ok\n"))
		})
	default: // cpu, step
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sum := render(s.iters)
			fmt.Fprintf(w, "%x\n", sum[:4])
		})
	}
}

// serve runs a child server: it prints its address and GOMAXPROCS on
// stdout, serves until stdin closes (the parent is done or gone), then
// prints its serverStats as one JSON line.
func serve(c serverConfig) error {
	s := &server{serverConfig: c}
	h, err := s.build()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var conns atomic.Int64
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}}
	if c.profile != "" {
		f, err := os.Create(c.profile)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	go srv.Serve(ln)
	fmt.Printf("%s %d\n", ln.Addr(), runtime.GOMAXPROCS(0))
	bufio.NewReader(os.Stdin).ReadString('\n')
	srv.Close()
	json.NewEncoder(os.Stdout).Encode(s.stats())
	if os.Getenv("OVERLOAD_DEBUG") != "" {
		debugRuntime(conns.Load())
		if s.debug != nil {
			fmt.Fprintf(os.Stderr, "%+v\n", s.debug())
		}
	}
	return nil
}

// burn spins threads goroutines until d has passed: another process
// taking CPU from the server for a while (the step scenario). Each runs on
// a thread of its own pinned to one of the last CPUs, at nice -10 where
// the system allows it, so that it takes that core rather than a fair
// share among the server's threads.
func burn(d time.Duration, threads int) {
	end := time.Now().Add(d)
	done := make(chan struct{})
	for i := range threads {
		go func() {
			runtime.LockOSThread()
			var set unix.CPUSet
			set.Set(max(runtime.NumCPU()-1-i, 0))
			unix.SchedSetaffinity(0, &set)
			unix.Setpriority(unix.PRIO_PROCESS, 0, -10) // this thread only, on Linux
			var sum [32]byte
			for time.Now().Before(end) {
				for range 1000 {
					sum = sha256.Sum256(sum[:])
				}
			}
			done <- struct{}{}
		}()
	}
	for range threads {
		<-done
	}
}

// debugRuntime prints, for OVERLOAD_DEBUG, what the child's runtime and
// the kernel did: connections accepted, GC cycles, threads and their
// context switches (summed over /proc/self/task).
func debugRuntime(conns int64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	tasks, _ := filepath.Glob("/proc/self/task/*/status")
	var vol, invol int64
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, l := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(l, ":")
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			switch k {
			case "voluntary_ctxt_switches":
				vol += n
			case "nonvoluntary_ctxt_switches":
				invol += n
			}
		}
	}
	fmt.Fprintf(os.Stderr, "conns %d, GC cycles %d, alloc %d MB, threads %d, ctxt switches %d voluntary, %d involuntary\n",
		conns, ms.NumGC, ms.TotalAlloc>>20, len(tasks), vol, invol)
}
