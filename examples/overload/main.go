// Command overload is a benchmark: it measures, in one run, how net/http
// servers behave under open-loop overload behind frontdoor and behind its
// peers (chi's ThrottleBacklog, failsafe-go's adaptivelimiter,
// go-concurrency-limits' Vegas and Gradient2, go-zero's adaptive shedder,
// kratos' BBR), and prints a table: scenario × variant × offered load →
// goodput, client timeouts, refusals, latency.
//
//	go run ./examples/overload                      # cpu and cold, ~2 min
//	go run ./examples/overload -full                # every scenario, ~12 min
//	go run ./examples/overload -scenarios upload    # slow uploads
//	go run ./examples/overload -scenarios cpu -rounds 5   # medians of 5 rounds
//
// Scenarios:
//
//   - sleep: an I/O-bound handler, 200 ms holding one of 50 backend
//     connections (capacity 250/s), steady steps;
//   - cold: the same from a cold start: per-second goodput and the time
//     to reach 95% of capacity;
//   - cpu: a CPU-bound render (8 ms of sha256), steady steps;
//   - heavy: renders of lognormal cost with the same mean;
//   - step: the cpu scenario at 1.2x while another process (the burner)
//     takes about a core for part of the step: per-second goodput and the
//     time to get back to 90% of the capacity of the moment, both ways;
//   - upload: slow uploaders beside the cpu scenario's clients, with
//     frontdoor's own compositions (concurrency, bodybuffer, shed);
//   - prio: the cpu scenario's render with two classes of arrivals,
//     critical and sheddable (20% / 80%, and critical alone at 1.5x):
//     per class success and p99, frontdoor with and without priorities,
//     failsafe-go's prioritized limiter, chi.
//
// Every variant of a scenario runs with the same GOMAXPROCS (for CPU-bound
// handlers limit + 1, the sizing rule any library can follow), the same
// limit, queue and timeouts where it takes them; only frontdoor-tight
// (limit = GOMAXPROCS = cores) departs from it, to show what the rule is
// for. The variants are the table in variants.go.
//
// Each server runs in a child process (this binary re-executed with
// -serve) so that the load generator's CPU scheduling and GC stay out of
// the server's Go runtime. Capacity is measured right before each
// variant's steps (the shared host's speed drifts within a run) with
// closed-loop clients against the unprotected server at the scenario's
// GOMAXPROCS, the same for every variant, also for those that size their
// own (the unprotected server's throughput moves with GOMAXPROCS, and a
// variant is held to the host's capacity, not to its own setting's), and
// that variant's offered loads are multiples of it; for the I/O-bound
// scenarios it is the backend's by construction (connections / handler
// time), which a noisy host cannot skew.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"github.com/zeromicro/go-zero/core/logx"
)

func main() {
	// go-zero, linked for its shedder, takes SIGINT and SIGTERM (a graceful
	// stop, then a kill 5.5 s later) and SIGUSR1/2 in its package init:
	// give them back their default behaviour.
	signal.Reset(syscall.SIGINT, syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGUSR2)
	var c config
	c.register(flag.CommandLine)
	flag.Parse()
	switch {
	case c.serve:
		c.server.procs = runtime.GOMAXPROCS(0)
		if err := serve(c.server); err != nil {
			fatal(err)
		}
	case c.burn > 0:
		burn(c.burn, max(c.burnThreads, 1))
	default:
		// go-zero, linked for its shedder, logs CPU statistics to stdout
		// every minute from its package init.
		logx.Disable()
		if err := run(c); err != nil {
			fatal(err)
		}
	}
}

// run runs the benchmark c describes and prints its tables on stdout.
func run(c config) error {
	if c.rounds < 1 {
		return fmt.Errorf("-rounds must be at least 1")
	}
	goProcs := runtime.GOMAXPROCS(0) // Go's default, before -gen-procs
	if c.genProcs > 0 {
		runtime.GOMAXPROCS(c.genProcs)
	}
	if c.profDir != "" {
		f, err := os.Create(c.profDir + "/generator.pprof")
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("overload: %d cores, GOMAXPROCS %d (load generator)\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	if b0 := busyCPU(); b0 >= 0 {
		time.Sleep(500 * time.Millisecond)
		fmt.Printf("before start, other processes used %.2f cores (the \"other\" column: the same during each step)\n",
			float64(busyCPU()-b0)/float64(500*time.Millisecond))
	}
	for _, name := range c.scenarioList() {
		sc, err := c.scenario(name, goProcs)
		if err != nil {
			return err
		}
		if err := sc.run(c); err != nil {
			return err
		}
	}
	return nil
}

// uploadChunk is the size of the slow uploaders' writes.
const uploadChunk = 16 << 10

// scenario is one scenario of a run: its server, how it is driven and
// which variants it compares.
type scenario struct {
	name     string
	base     serverConfig // every variant's server, before the variant's size
	loads    []float64
	variants []string
	step     step
	capOnce  bool      // capacity is the backend's (limit / sleep), not the host's: not measured
	shares   []float64 // prio: the critical share of each load
}

// scenario returns the scenario called name under c; goProcs is Go's
// default GOMAXPROCS.
func (c config) scenario(name string, goProcs int) (*scenario, error) {
	var loads []float64
	var err error
	if name != "prio" { // prio parses its own: m@share
		if loads, err = c.loadList(name); err != nil {
			return nil, err
		}
	}
	sc := &scenario{name: name, loads: loads, step: step{dur: c.dur, warm: c.dur / 5}}
	cpuProcs := c.cpuLimit + 1
	ioProcs := goProcs
	if c.procs > 0 {
		cpuProcs, ioProcs = c.procs, c.procs
	}
	cpuBase := serverConfig{scenario: name, limit: c.cpuLimit, queueTimeout: c.cpuTimeout / 2,
		backlog: 8 * c.cpuLimit, procs: cpuProcs}
	ioBase := serverConfig{scenario: name, limit: c.sleepLimit, sleep: c.sleepTime,
		queueTimeout: c.sleepTimeout / 2, backlog: c.sleepLimit, procs: ioProcs}
	s := &sc.step
	switch name {
	case "sleep", "cold":
		sc.base, sc.capOnce = ioBase, true
		s.timeout, s.capClients = c.sleepTimeout, 2*c.sleepLimit
		if name == "sleep" {
			s.clients = uint64(c.sleepClients)
			s.dur, s.warm = c.sleepWarm+c.dur, c.sleepWarm
			fmt.Printf("\nscenario sleep: %s handler holding 1 of %d backend connections (ideal %.0f/s), %d clients, client timeout %s, %s per step counted after %s at its load\n",
				c.sleepTime, c.sleepLimit, float64(c.sleepLimit)/c.sleepTime.Seconds(), c.sleepClients, c.sleepTimeout, c.dur, c.sleepWarm)
		} else {
			s.dur = c.coldDur
			if s.dur == 0 {
				s.dur = 8 * time.Second
				if c.full {
					s.dur = 10 * time.Second
				}
			}
			s.warm, s.timeline = s.dur/2, true
			fmt.Printf("\nscenario cold: the sleep scenario's handler (%s, %d backend connections) from a cold start, no cap on clients, client timeout %s, %s per step;\n"+
				"per-second goodput as %% of capacity, t95 = time to the first second at >= 95%% of capacity; goodput column: the second half of the step\n",
				c.sleepTime, c.sleepLimit, c.sleepTimeout, s.dur)
		}
	case "prio":
		sc.base = cpuBase
		sc.base.iters = calibrate(c.render)
		s.timeout, s.capClients = c.cpuTimeout, 2*runtime.NumCPU()
		list := c.loads
		if list == "" {
			list = prioDefaultLoads
		}
		if sc.loads, sc.shares, err = parsePrioLoads(list); err != nil {
			return nil, err
		}
		fmt.Printf("\nscenario prio: the cpu scenario's render (%d sha256 rounds ≈ %s), limit %d, queue %d / %s, GOMAXPROCS %d, client timeout %s;\n"+
			"two classes of open-loop arrivals, critical and sheddable (Frontdoor-Priority header); load: multiple of capacity @ critical share;\n"+
			"per class: %% served (2xx), refused (503/429), timed out, p99 of the served; mixed: seconds in which a critical request failed while a sheddable one was served\n",
			sc.base.iters, c.render, sc.base.limit, sc.base.backlog, sc.base.queueTimeout, sc.base.procs, c.cpuTimeout)
	case "cpu", "heavy", "step":
		sc.base = cpuBase
		sc.base.iters = calibrate(c.render)
		s.timeout, s.capClients = c.cpuTimeout, 2*runtime.NumCPU()
		what := "render"
		if name == "heavy" {
			sc.base.sigma = c.heavySigma
			what = fmt.Sprintf("lognormal render (σ %g: median %.1fms, p99 %.0fms)", c.heavySigma,
				float64(c.render)/1e6*math.Exp(-c.heavySigma*c.heavySigma/2),
				float64(c.render)/1e6*math.Exp(2.326*c.heavySigma-c.heavySigma*c.heavySigma/2))
		}
		fmt.Printf("\nscenario %s: %s = %d sha256 rounds ≈ %s of CPU on average, limit %d, queue %d / %s, GOMAXPROCS %d, client timeout %s\n",
			name, what, sc.base.iters, c.render, sc.base.limit, sc.base.backlog, sc.base.queueTimeout, sc.base.procs, c.cpuTimeout)
		if name == "step" {
			s.dur, s.warm, s.timeline = c.stepDur, 0, true
			s.burnFrom, s.burnTo, s.burnThreads = c.burnFrom, c.burnTo, c.burnThreads
			fmt.Printf("a burner process (%d spinning thread(s), pinned, nice -10) runs from %s to %s of each %s step; cap/s and capBurn: capacity without and with it;\n"+
				"per-second goodput as %% of the capacity of the moment; down, up = time to the first second at >= 90%% of it after the burner starts, stops\n",
				s.burnThreads, s.burnFrom, s.burnTo, s.dur)
		}
	case "upload":
		if c.uploadShare < 0 || c.uploadShare >= 1 {
			return nil, fmt.Errorf("-upload-share must be in [0, 1)")
		}
		sc.base = cpuBase
		sc.base.iters = calibrate(c.render)
		chunks := (c.uploadSize + uploadChunk - 1) / uploadChunk
		sc.step = step{timeout: c.cpuTimeout, capClients: 2 * runtime.NumCPU(), body: make([]byte, 1<<10),
			dur: c.uploadDur, warm: max(c.uploadDur/5, c.uploadTime), share: c.uploadShare,
			upload: uploadSpec{size: c.uploadSize, chunk: uploadChunk, gap: c.uploadTime / time.Duration(max(chunks, 1)),
				timeout: 10 * time.Second, max: c.uploadMax}}
		s = &sc.step
		fmt.Printf("\nscenario upload: render = %d sha256 rounds ≈ %s of CPU after io.ReadAll of the body, limit %d, queue %d / %s, GOMAXPROCS %d;\n"+
			"normal clients POST 1 KiB, client timeout %s; %.0f%% of arrivals upload %d bytes in %d chunks over ~%s (raw TCP, at most %d at once, give up after %s);\n"+
			"bodybuffer: MaxBytes 1 MiB, IdleTimeout 2s, Timeout 10s; frontdoor: shed limit %d = 2 × (limit + queue) in front of bodybuffer;\n"+
			"%s per step, goodput counted from %s on\n",
			sc.base.iters, c.render, sc.base.limit, sc.base.backlog, sc.base.queueTimeout, sc.base.procs, c.cpuTimeout,
			100*c.uploadShare, c.uploadSize, chunks, c.uploadTime, c.uploadMax, s.upload.timeout,
			uploadShedLimit(sc.base), s.dur, s.warm)
	default:
		return nil, fmt.Errorf("unknown scenario %q (%v)", name, scenarioNames)
	}
	sc.variants = defaultVariants(name, c.full)
	if name == "prio" {
		sc.variants = slices.Clone(prioVariants)
	}
	if c.variants != "" {
		sc.variants = parseVariants(c.variants)
	}
	for _, v := range sc.variants {
		if _, ok := variants[v]; name != "upload" && !ok {
			return nil, fmt.Errorf("unknown variant %q (%v)", v, variantNames())
		}
		if name == "upload" && v != "none" && v != "concurrency" && v != "bodybuffer" && v != "frontdoor" && v != "split" {
			return nil, fmt.Errorf("scenario upload: unknown variant %q (none, concurrency, bodybuffer, frontdoor, split)", v)
		}
	}
	return sc, nil
}

// config returns the server of variant v in sc.
func (sc *scenario) config(v string) serverConfig {
	cfg := sc.base
	cfg.variant = v
	if size := variants[v].size; size != nil && !ioBound(sc.name) && sc.name != "upload" {
		size(&cfg, runtime.NumCPU())
	}
	return cfg
}

// run measures every variant of sc and prints its table and reading.
func (sc *scenario) run(c config) error {
	if sc.name == "prio" {
		return sc.runPrio(c)
	}
	s := sc.step
	var capacity float64
	fmt.Printf("capacity: ")
	if !sc.capOnce {
		fmt.Printf("none with %d closed-loop clients for %s, ", s.capClients, c.capDur)
	}
	if sc.capOnce {
		capacity = float64(sc.base.limit) / sc.base.sleep.Seconds()
		fmt.Printf("not measured: the backend's, %d connections / %s = %.0f/s\n", sc.base.limit, sc.base.sleep, capacity)
	} else {
		fmt.Printf("at GOMAXPROCS %d for every variant, right before its steps (the cap/s column)\n", sc.base.procs)
	}
	if sc.name != "upload" {
		printLegend(sc.variants)
	}
	switch {
	case sc.name == "upload":
		printUploadHeader()
	case s.timeline:
		printTimelineHeader(sc.name)
	default:
		printHeader()
	}
	var res []result
	for round := range c.rounds {
		if c.rounds > 1 {
			fmt.Printf("round %d of %d\n", round+1, c.rounds)
		}
		res = append(res, sc.runRound(c, round, capacity)...)
	}
	if sc.name == "upload" {
		return nil
	}
	if c.rounds > 1 {
		res = medians(res)
		printMedians(sc.name, res, c.rounds)
	}
	printReading(sc.name, res)
	return nil
}

// runRound runs every variant of sc once, in an order that turns with
// round so that no variant always runs first (or last) on a host whose
// speed drifts, and returns their results.
func (sc *scenario) runRound(c config, round int, capacity float64) []result {
	s := sc.step
	var res []result
	n := len(sc.variants)
	for i := range n {
		v := sc.variants[(i+round)%n]
		cfg := sc.config(v)
		if !sc.capOnce {
			// Each variant is held to a capacity measured just before its
			// steps: the shared host's speed drifts over a run by more
			// than the differences this table is about.
			capacity = measureCapacity(withVariant(sc.base, "none"), s, c.capDur, false)
		}
		capBurn := capacity
		if s.burnTo > s.burnFrom {
			capBurn = measureCapacity(withVariant(sc.base, "none"), s, c.capDur, true)
		}
		for _, m := range sc.loads {
			if c.profDir != "" {
				cfg.profile = fmt.Sprintf("%s/%s-%s-%.1fx.pprof", c.profDir, sc.name, v, m)
			}
			srv := start(cfg)
			t0, g0, b0 := time.Now(), selfCPU(), busyCPU()
			o, u := s.run(srv, m*capacity, c.seed)
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
			r := newResult(v, srv.procs, m, capacity, capBurn, o, s)
			switch {
			case sc.name == "upload":
				printUploadRow(sc.name, v, srv.procs, m, capacity, o, u, st, time.Duration(wall))
			case s.timeline:
				printTimelineRow(sc.name, r, o)
			default:
				printRow(sc.name, v, srv.procs, m, capacity, o)
			}
			res = append(res, r)
		}
	}
	return res
}

// withVariant returns cfg with variant v.
func withVariant(cfg serverConfig, v string) serverConfig {
	cfg.variant = v
	return cfg
}

// step holds how a scenario is driven.
type step struct {
	dur, warm  time.Duration // length of a load step; goodput is counted from warm on
	timeout    time.Duration
	clients    uint64 // cap on requests in flight, 0 = none (pure open loop)
	capClients int    // closed-loop clients of the capacity measurement
	body       []byte // body of the normal clients' POSTs; nil: GET
	timeline   bool   // report per-second goodput

	burnFrom, burnTo time.Duration // a burner process runs in [burnFrom, burnTo) of the step
	burnThreads      int

	share  float64 // share of the arrivals that are slow uploads (0: none)
	upload uploadSpec

	crit float64 // prio: share of the arrivals that are critical (0: one class)
}

// run drives one load step against srv: the normal clients at rate/s
// and, beside them, the slow uploaders, so that they make up s.share of
// all arrivals, and the burner if the step has one. It returns when all
// are done.
func (s step) run(srv *child, rate float64, seed uint64) (outcome, uploadOutcome) {
	var u uploadOutcome
	done := make(chan struct{})
	go func() {
		defer close(done)
		if s.share > 0 {
			u = slowUploads(srv.addr, rate*s.share/(1-s.share), s.dur, s.warm, s.upload, seed)
		}
	}()
	burnt := make(chan struct{})
	go func() {
		defer close(burnt)
		if s.burnTo > s.burnFrom {
			time.Sleep(s.burnFrom)
			startBurner(s.burnTo-s.burnFrom, s.burnThreads).Wait()
		}
	}()
	o := attack(srv.url, rate, s.dur, s.warm, s.timeout, s.clients, s.body, s.crit, seed)
	<-done
	<-burnt
	return o, u
}

// measureCapacity returns the 2xx/s of the server cfg (unprotected: none)
// under s.capClients closed-loop clients for d, with the step's burner
// running all along if burning.
func measureCapacity(cfg serverConfig, s step, d time.Duration, burning bool) float64 {
	srv := start(cfg)
	var burner interface{ Wait() error }
	if burning {
		burner = startBurner(d, s.burnThreads)
	}
	t0, g0 := time.Now(), selfCPU()
	capacity := closedLoop(srv.url, s.capClients, d, s.body)
	gen := float64(selfCPU()-g0) / float64(time.Since(t0))
	cpu, _ := srv.stop()
	if burner != nil {
		burner.Wait()
	}
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
