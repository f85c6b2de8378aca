package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
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

	"github.com/go-chi/chi/v5/middleware"
)

// serverConfig is everything a child server needs; the parent passes it as
// flags so that each variant runs in a process of its own, with its own
// GOMAXPROCS, apart from the load generator's goroutines and GC.
type serverConfig struct {
	scenario     string
	variant      string
	limit        int           // slots: renders at once, or backend connections
	iters        int           // sha256 rounds of one render (cpu)
	sleep        time.Duration // handler duration (sleep)
	queueTimeout time.Duration // wait budget of chi's backlog and frontdoor's queue
	backlog      int           // chi backlog and frontdoor MaxQueue
	headroom     bool          // frontdoor: apply the GOMAXPROCS ≥ Limit+1 rule
	profile      string        // write a CPU profile of the child to this file
}

// render burns CPU: iters rounds of sha256 over its own output.
func render(iters int) [32]byte {
	var sum [32]byte
	for range iters {
		sum = sha256.Sum256(sum[:])
	}
	return sum
}

// handler returns the scenario's handler, unprotected.
func (c serverConfig) handler() http.Handler {
	switch c.scenario {
	case "upload":
		return c.uploadHandler()
	case "cpu":
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sum := render(c.iters)
			fmt.Fprintf(w, "%x\n", sum[:4])
		})
	default: // sleep: each request holds one of limit backend connections
		backend := make(chan struct{}, c.limit)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case backend <- struct{}{}:
			case <-r.Context().Done():
				return
			}
			time.Sleep(c.sleep)
			<-backend
			w.Write([]byte("ok\n"))
		})
	}
}

// protect wraps h in the variant's middleware.
func (c serverConfig) protect(h http.Handler) http.Handler {
	if c.scenario == "upload" && c.variant != "none" {
		return uploadChain(c, h)
	}
	switch c.variant {
	case "chi", "chi+":
		if c.variant == "chi+" {
			reserveP(c) // chi given frontdoor's headroom, for comparison
		}
		return middleware.ThrottleWithOpts(middleware.ThrottleOpts{
			Limit: c.limit, BacklogLimit: c.backlog, BacklogTimeout: c.queueTimeout,
			StatusCode: http.StatusServiceUnavailable,
		})(h)
	case "frontdoor":
		return frontdoor(c, h)
	}
	return h
}

// debugStats, if set, returns the variant's counters for OVERLOAD_DEBUG.
var debugStats func() any

// serve runs a child server: it prints its address and GOMAXPROCS on
// stdout, serves until stdin closes (the parent is done or gone), then
// prints its serverStats as one JSON line.
func serve(c serverConfig) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var conns atomic.Int64
	srv := &http.Server{Handler: c.protect(c.handler()), ReadHeaderTimeout: 5 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}}
	if c.profile != "" {
		f, err := os.Create(c.profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	go srv.Serve(ln) // GOMAXPROCS is read below, after protect may have set it
	fmt.Printf("%s %d\n", ln.Addr(), runtime.GOMAXPROCS(0))
	bufio.NewReader(os.Stdin).ReadString('\n')
	srv.Close()
	var st serverStats
	for _, f := range collect {
		f(&st)
	}
	json.NewEncoder(os.Stdout).Encode(st)
	if os.Getenv("OVERLOAD_DEBUG") != "" {
		debugRuntime(conns.Load())
		if debugStats != nil {
			fmt.Fprintf(os.Stderr, "%+v\n", debugStats())
		}
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
