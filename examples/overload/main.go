// Command overload measures, in one run, how net/http servers behave under
// open-loop overload with no protection, with chi's ThrottleBacklog and
// with frontdoor, and prints a table: scenario × variant × offered load →
// goodput, client timeouts, refusals, latency.
//
//	go run ./examples/overload
//	go run ./examples/overload -scenarios upload
//
// The default runs the sleep and cpu scenarios (about a minute). The
// upload scenario (about two minutes, not in the default set) mixes slow
// uploaders with the normal clients of a CPU-bound handler that reads its
// body with io.ReadAll, and compares concurrency alone (the body is read
// inside the render slot), bodybuffer in front of concurrency (the body is
// read before a slot is taken), shed in front of both (an upload past
// shed's limit is refused before its body is read), and split: the same
// with one Shedder for uploads and one for the other requests. A share of the
// arrivals (-upload-share) are raw TCP clients that send ~300 KB slowly
// (-upload-size in -upload-time); the table adds their outcomes and the
// render-slot time the handler spent waiting on body reads.
//
// Each server runs in a child process (this binary re-executed with
// -serve) so that the load generator's CPU scheduling and GC stay out of
// the server's Go runtime, and each variant gets the GOMAXPROCS it is
// documented to need. Capacity is measured right before each variant's
// steps (the shared host's speed drifts within a run), and that variant's
// offered loads are multiples of it.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

func main() {
	var c serverConfig
	serveMode := flag.Bool("serve", false, "internal: run one server (child process)")
	flag.StringVar(&c.scenario, "scenario", "", "internal: scenario of the child server")
	flag.StringVar(&c.variant, "variant", "", "internal: variant of the child server")
	flag.IntVar(&c.limit, "limit", 0, "internal: slots of the child server")
	flag.IntVar(&c.iters, "iters", 0, "internal: sha256 rounds per render")
	flag.IntVar(&c.backlog, "backlog", 0, "internal: queue bound")
	flag.DurationVar(&c.sleep, "sleep", 0, "internal: sleep handler duration")
	flag.DurationVar(&c.queueTimeout, "queue-timeout", 0, "internal: queue wait budget")
	flag.StringVar(&c.profile, "cpuprofile", "", "internal: write a CPU profile of the child server to this file")
	profDir := flag.String("profile-dir", "", "write a CPU profile of each child server to this directory (diagnosis)")

	scenarios := flag.String("scenarios", "sleep,cpu", "scenarios to run: sleep (seed 000), cpu (seed 003), upload (slow uploads, not in the default set)")
	variants := flag.String("variants", "", "variants to compare; default per scenario: sleep, cpu: none,chi,frontdoor (also chi+); upload: concurrency,bodybuffer,frontdoor,split (also none)")
	loads := flag.String("loads", "0.5,1.2,2,3", "offered loads, as multiples of the measured capacity")
	dur := flag.Duration("duration", 1500*time.Millisecond, "sleep, cpu: duration of each load step")
	capDur := flag.Duration("capacity-duration", 2*time.Second, "duration of the capacity measurement")
	renderTime := flag.Duration("render", 8*time.Millisecond, "cpu, upload: CPU time of one render (calibrated to sha256 rounds)")
	cpuTimeout := flag.Duration("cpu-timeout", 100*time.Millisecond, "cpu, upload: client timeout (of the normal clients)")
	cpuLimit := flag.Int("cpu-limit", runtime.NumCPU()+1, "cpu, upload: renders at once (chi, frontdoor, concurrency, bodybuffer); the sizing rule: cores+1")
	flag.BoolVar(&c.headroom, "headroom", true, "cpu, upload: frontdoor, concurrency and bodybuffer follow the sizing rule GOMAXPROCS >= limit+1")
	procs := flag.Int("procs", runtime.NumCPU(), "GOMAXPROCS the servers start with")
	genProcs := flag.Int("gen-procs", 0, "GOMAXPROCS of the load generator (this process); 0: Go's default")
	sleepTime := flag.Duration("sleep-time", 200*time.Millisecond, "sleep: handler duration")
	sleepLimit := flag.Int("sleep-limit", 50, "sleep: backend connections (limit)")
	sleepClients := flag.Int("sleep-clients", 200, "sleep: clients (max requests in flight)")
	sleepTimeout := flag.Duration("sleep-timeout", time.Second, "sleep: client timeout")
	uploadDur := flag.Duration("upload-duration", 5*time.Second, "upload: duration of each load step (goodput counted after max(1/5 of it, -upload-time))")
	uploadShare := flag.Float64("upload-share", 0.2, "upload: share of the arrivals that are slow uploaders")
	uploadSize := flag.Int("upload-size", 300<<10, "upload: body size of a slow upload, in bytes")
	uploadTime := flag.Duration("upload-time", 2*time.Second, "upload: time a slow uploader takes to send its body (16 KiB chunks with pauses)")
	uploadMax := flag.Int("upload-max", 500, "upload: slow uploads at once at most (arrivals past it are skipped and counted)")
	seed := flag.Uint64("seed", 1, "seed of the Poisson arrivals")
	flag.Parse()

	if *serveMode {
		serve(c)
		return
	}
	if *genProcs > 0 {
		runtime.GOMAXPROCS(*genProcs)
	}
	if *profDir != "" {
		f, err := os.Create(*profDir + "/generator.pprof")
		if err != nil {
			fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("overload: %d cores, GOMAXPROCS %d (load generator), %s per step (upload: see below)\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), *dur)
	if b0 := busyCPU(); b0 >= 0 {
		time.Sleep(500 * time.Millisecond)
		fmt.Printf("before start, other processes used %.2f cores (the \"other\" column: the same during each step)\n",
			float64(busyCPU()-b0)/float64(500*time.Millisecond))
	}
	var multiples []float64
	for _, s := range strings.Split(*loads, ",") {
		m, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			fatal(err)
		}
		multiples = append(multiples, m)
	}
	for _, sc := range strings.Split(*scenarios, ",") {
		var base serverConfig
		s := step{dur: *dur, warm: *dur / 5}
		vs := "none,chi,frontdoor"
		switch sc {
		case "upload":
			if *uploadShare < 0 || *uploadShare >= 1 {
				fatal(fmt.Errorf("-upload-share must be in [0, 1)"))
			}
			iters := calibrate(*renderTime)
			base = serverConfig{scenario: "upload", limit: *cpuLimit, iters: iters,
				queueTimeout: *cpuTimeout / 2, backlog: 8 * *cpuLimit, headroom: c.headroom}
			chunks := (*uploadSize + uploadChunk - 1) / uploadChunk
			s = step{timeout: *cpuTimeout, capClients: 2 * runtime.NumCPU(), body: make([]byte, 1<<10),
				dur: *uploadDur, warm: max(*uploadDur/5, *uploadTime), share: *uploadShare,
				upload: uploadSpec{size: *uploadSize, chunk: uploadChunk, gap: *uploadTime / time.Duration(max(chunks, 1)),
					timeout: 10 * time.Second, max: *uploadMax}}
			vs = "concurrency,bodybuffer,frontdoor,split"
			fmt.Printf("\nscenario upload: render = %d sha256 rounds ≈ %s of CPU after io.ReadAll of the body, limit %d, queue %d / %s;\n"+
				"normal clients POST 1 KiB, client timeout %s; %.0f%% of arrivals upload %d bytes in %d chunks over ~%s (raw TCP, at most %d at once, give up after %s);\n"+
				"bodybuffer: MaxBytes 1 MiB, IdleTimeout 2s, Timeout 10s; frontdoor: shed limit %d = 2 × (limit + queue) in front of bodybuffer;\n"+
				"%s per step, goodput counted from %s on\n",
				iters, *renderTime, base.limit, base.backlog, base.queueTimeout, *cpuTimeout,
				100**uploadShare, *uploadSize, chunks, *uploadTime, *uploadMax, s.upload.timeout,
				uploadShedLimit(base), s.dur, s.warm)
		case "cpu":
			iters := calibrate(*renderTime)
			base = serverConfig{scenario: "cpu", limit: *cpuLimit, iters: iters,
				queueTimeout: *cpuTimeout / 2, backlog: 8 * *cpuLimit, headroom: c.headroom}
			s.timeout, s.capClients = *cpuTimeout, 2*runtime.NumCPU()
			fmt.Printf("\nscenario cpu (seed 003): render = %d sha256 rounds ≈ %s of CPU, limit %d, queue %d / %s, client timeout %s\n",
				iters, *renderTime, base.limit, base.backlog, base.queueTimeout, *cpuTimeout)
		case "sleep":
			base = serverConfig{scenario: "sleep", limit: *sleepLimit, sleep: *sleepTime,
				queueTimeout: *sleepTimeout / 2, backlog: *sleepLimit}
			s.timeout, s.clients, s.capClients = *sleepTimeout, uint64(*sleepClients), 2**sleepLimit
			fmt.Printf("\nscenario sleep (seed 000): %s handler holding 1 of %d backend connections (ideal %.0f/s), %d clients, client timeout %s\n",
				*sleepTime, *sleepLimit, float64(*sleepLimit)/sleepTime.Seconds(), *sleepClients, *sleepTimeout)
		default:
			fatal(fmt.Errorf("unknown scenario %q", sc))
		}
		fmt.Printf("capacity: none with %d closed-loop clients for %s, measured right before each variant's steps (the cap/s column)\n",
			s.capClients, *capDur)
		if *variants != "" {
			vs = *variants
		}
		if sc == "upload" {
			printUploadHeader()
		} else {
			printHeader()
		}
		for _, v := range strings.Split(vs, ",") {
			if sc == "upload" && v != "none" && v != "concurrency" && v != "bodybuffer" && v != "frontdoor" && v != "split" {
				fatal(fmt.Errorf("scenario upload: unknown variant %q (none, concurrency, bodybuffer, frontdoor, split)", v))
			}
			// Each variant is held to a capacity measured just before its
			// steps: the shared host's speed drifts over a run by more than
			// the differences this table is about.
			capacity := measureCapacity(base, *procs, s, *capDur)
			cfg := base
			cfg.variant = v
			for _, m := range multiples {
				if *profDir != "" {
					cfg.profile = fmt.Sprintf("%s/%s-%s-%.1fx.pprof", *profDir, sc, v, m)
				}
				srv := start(cfg, *procs)
				t0, g0, b0 := time.Now(), selfCPU(), busyCPU()
				o, u := s.run(srv, m*capacity, *seed)
				o.genCPU = float64(selfCPU()-g0) / float64(time.Since(t0))
				// The server's CPU counts until it has stopped: a server
				// without protection still works off its backlog then.
				cpu, st := srv.stop()
				wall := float64(time.Since(t0))
				if os.Getenv("OVERLOAD_DEBUG") != "" && st.Admitted > 0 {
					fmt.Fprintf(os.Stderr, "server %.0f µs CPU per admitted request (%d admitted, %d refused), generator %.0f µs CPU per request sent\n",
						float64(cpu)/1e3/float64(st.Admitted), st.Admitted, st.Refused, o.genCPU*wall/1e3/float64(o.sent))
				}
				o.serverCPU = float64(cpu) / wall
				if b0 >= 0 {
					o.otherCPU = float64(busyCPU()-b0)/wall - o.genCPU - o.serverCPU
				}
				if sc == "upload" {
					printUploadRow(sc, v, srv.procs, m, capacity, o, u, st, time.Duration(wall))
				} else {
					printRow(sc, v, srv.procs, m, capacity, o)
				}
			}
		}
	}
}

// uploadChunk is the size of the slow uploaders' writes.
const uploadChunk = 16 << 10

// step holds how a scenario is driven.
type step struct {
	dur, warm  time.Duration // length of a load step; goodput is counted from warm on
	timeout    time.Duration
	clients    uint64 // cap on requests in flight, 0 = none (pure open loop)
	capClients int    // closed-loop clients of the capacity measurement
	body       []byte // body of the normal clients' POSTs; nil: GET

	share  float64 // share of the arrivals that are slow uploads (0: none)
	upload uploadSpec
}

// run drives one load step against srv: the normal clients at rate/s
// and, beside them, the slow uploaders, so that they make up s.share of
// all arrivals. It returns when both are done.
func (s step) run(srv *child, rate float64, seed uint64) (outcome, uploadOutcome) {
	var u uploadOutcome
	done := make(chan struct{})
	go func() {
		defer close(done)
		if s.share > 0 {
			u = slowUploads(srv.addr, rate*s.share/(1-s.share), s.dur, s.warm, s.upload, seed)
		}
	}()
	o := attack(srv.url, rate, s.dur, s.warm, s.timeout, s.clients, s.body, seed)
	<-done
	return o, u
}

// measureCapacity returns the 2xx/s of the unprotected server of base
// under s.capClients closed-loop clients for d.
func measureCapacity(base serverConfig, procs int, s step, d time.Duration) float64 {
	base.variant = "none"
	srv := start(base, procs)
	t0, g0 := time.Now(), selfCPU()
	capacity := closedLoop(srv.url, s.capClients, d, s.body)
	gen := float64(selfCPU()-g0) / float64(time.Since(t0))
	cpu, _ := srv.stop()
	if os.Getenv("OVERLOAD_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "capacity: server %.2f cores, %.0f µs CPU per 2xx; generator %.2f cores\n",
			float64(cpu)/float64(time.Since(t0)), float64(cpu)/1e3/(capacity*d.Seconds()), gen)
	}
	return capacity
}

// calibrate returns the sha256 rounds that take about d of CPU here. It
// keeps the fastest of several timings, the one least disturbed by other
// processes.
func calibrate(d time.Duration) int {
	n := 1000
	for {
		best := time.Duration(math.MaxInt64)
		for range 5 {
			start := time.Now()
			render(n)
			best = min(best, time.Since(start))
		}
		if best > 20*time.Millisecond {
			return int(float64(n) * float64(d) / float64(best))
		}
		n *= 2
	}
}
