package main

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is one run of the benchmark: which scenarios and variants, and
// how each scenario is driven. Flags fill it (register); run takes it.
type config struct {
	scenarios string // comma-separated; "" means the default set (or all with full)
	variants  string // comma-separated; "" means defaultVariants per scenario
	loads     string // steady scenarios' offered loads, multiples of capacity; "" means per scenario
	full      bool   // the full matrix: every scenario, more loads, no protection too

	rounds   int           // times every variant's steps run; the reading takes the medians
	dur      time.Duration // one steady load step
	capDur   time.Duration // one capacity measurement
	procs    int           // GOMAXPROCS of every server; 0: limit + 1 for CPU-bound handlers, Go's default for I/O-bound
	genProcs int           // GOMAXPROCS of the load generator; 0: Go's default
	seed     uint64        // of the Poisson arrivals
	profDir  string        // write a CPU profile of each server here

	render     time.Duration // CPU time of one render of mean cost
	cpuTimeout time.Duration // client timeout of CPU-bound scenarios
	cpuLimit   int           // render slots

	sleepTime    time.Duration // I/O handler duration
	sleepLimit   int           // backend connections
	sleepClients int           // clients in flight at most (sleep)
	sleepTimeout time.Duration // client timeout (sleep, cold)
	coldDur      time.Duration // cold: length of the step
	sleepWarm    time.Duration // sleep: time each step runs at its load before it counts

	heavySigma float64 // heavy: σ of the lognormal render cost

	stepDur     time.Duration // step: length of the step
	stepLoad    float64       // step: offered load, a multiple of the full capacity
	burnFrom    time.Duration // step: when the burner starts
	burnTo      time.Duration // step: when it stops
	burnThreads int           // step: the burner's spinning threads, each pinned to a core

	uploadDur   time.Duration
	uploadShare float64
	uploadSize  int
	uploadTime  time.Duration
	uploadMax   int

	// Internal modes: this binary re-executed as a child server or burner.
	serve  bool
	server serverConfig
	burn   time.Duration
}

// register defines the flags that fill c on fs.
func (c *config) register(fs *flag.FlagSet) {
	cores := runtime.NumCPU()
	fs.StringVar(&c.scenarios, "scenarios", "", "scenarios to run, of "+strings.Join(scenarioNames, ", ")+"; default cpu,cold (with -full: all but upload)")
	fs.StringVar(&c.variants, "variants", "", "variants to compare, of "+strings.Join(variantNames(), ", ")+
		"; default every peer beside frontdoor (upload: "+strings.Join(uploadVars, ",")+", also none)")
	fs.StringVar(&c.loads, "loads", "", "offered loads of the steady scenarios, as multiples of the measured capacity; default cpu 1.2,3, cold 3 (-full: sleep, cpu 0.5,1.2,2,3, heavy 1.2,2,3, cold 1.2,3, upload 0.5,1.2,2,3); prio: m@critical-share, default "+prioDefaultLoads)
	fs.BoolVar(&c.full, "full", false, "the full matrix: scenarios sleep,cold,cpu,heavy,step, more loads, the unprotected server too (~12 min)")
	fs.IntVar(&c.rounds, "rounds", 1, "run every variant's steps this many times, in turns, each after its own capacity measurement; the reading takes the medians")
	fs.DurationVar(&c.dur, "duration", 1500*time.Millisecond, "sleep, cpu, heavy: duration of each load step")
	fs.DurationVar(&c.capDur, "capacity-duration", 1500*time.Millisecond, "duration of a capacity measurement")
	fs.IntVar(&c.procs, "procs", 0, "GOMAXPROCS of every server; 0: -cpu-limit + 1 for CPU-bound handlers (the sizing rule), Go's default for I/O-bound ones")
	fs.IntVar(&c.genProcs, "gen-procs", 0, "GOMAXPROCS of the load generator (this process); 0: Go's default")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the Poisson arrivals")
	fs.StringVar(&c.profDir, "profile-dir", "", "write a CPU profile of each child server to this directory (diagnosis)")

	fs.DurationVar(&c.render, "render", 8*time.Millisecond, "cpu, heavy, step, upload: mean CPU time of one render (calibrated to sha256 rounds)")
	fs.DurationVar(&c.cpuTimeout, "cpu-timeout", 100*time.Millisecond, "cpu, heavy, step, upload: client timeout (of the normal clients); queues wait at most half of it")
	fs.IntVar(&c.cpuLimit, "cpu-limit", cores+1, "cpu, heavy, step, upload: renders at once (chi, frontdoor); the sizing rule: cores+1")

	fs.DurationVar(&c.sleepTime, "sleep-time", 200*time.Millisecond, "sleep, cold: handler duration")
	fs.IntVar(&c.sleepLimit, "sleep-limit", 50, "sleep, cold: backend connections (the limit of chi and frontdoor)")
	fs.IntVar(&c.sleepClients, "sleep-clients", 200, "sleep: clients (max requests in flight); cold: no cap")
	fs.DurationVar(&c.sleepTimeout, "sleep-timeout", time.Second, "sleep, cold: client timeout; queues wait at most half of it")
	fs.DurationVar(&c.sleepWarm, "sleep-warm", 5*time.Second, "sleep: time each step runs at its load before the -duration that counts (the cold scenario measures the first seconds)")
	fs.DurationVar(&c.coldDur, "cold-duration", 0, "cold: length of the step from a cold start; 0: 8s (-full: 10s)")

	fs.Float64Var(&c.heavySigma, "heavy-sigma", 1, "heavy: σ of the lognormal render cost (mean kept at -render)")

	fs.DurationVar(&c.stepDur, "step-duration", 12*time.Second, "step: length of the step")
	fs.Float64Var(&c.stepLoad, "step-load", 1.2, "step: offered load, a multiple of the capacity measured without the burner")
	fs.DurationVar(&c.burnFrom, "burn-from", 4*time.Second, "step: when the burner process starts, from the start of the step")
	fs.DurationVar(&c.burnTo, "burn-to", 8*time.Second, "step: when it stops")
	fs.IntVar(&c.burnThreads, "burn-threads", 1, "step: cores the burner takes (one spinning thread pinned to each of the last cores, at nice -10 where allowed)")

	fs.DurationVar(&c.uploadDur, "upload-duration", 5*time.Second, "upload: duration of each load step (goodput counted after max(1/5 of it, -upload-time))")
	fs.Float64Var(&c.uploadShare, "upload-share", 0.2, "upload: share of the arrivals that are slow uploaders")
	fs.IntVar(&c.uploadSize, "upload-size", 300<<10, "upload: body size of a slow upload, in bytes")
	fs.DurationVar(&c.uploadTime, "upload-time", 2*time.Second, "upload: time a slow uploader takes to send its body (16 KiB chunks with pauses)")
	fs.IntVar(&c.uploadMax, "upload-max", 500, "upload: slow uploads at once at most (arrivals past it are skipped and counted)")

	fs.BoolVar(&c.serve, "serve", false, "internal: run one server (child process)")
	fs.StringVar(&c.server.scenario, "scenario", "", "internal: scenario of the child server")
	fs.StringVar(&c.server.variant, "variant", "", "internal: variant of the child server")
	fs.IntVar(&c.server.limit, "limit", 0, "internal: slots of the child server")
	fs.IntVar(&c.server.iters, "iters", 0, "internal: sha256 rounds per render")
	fs.Float64Var(&c.server.sigma, "sigma", 0, "internal: σ of the render cost")
	fs.IntVar(&c.server.backlog, "backlog", 0, "internal: queue bound")
	fs.DurationVar(&c.server.sleep, "sleep", 0, "internal: sleep handler duration")
	fs.DurationVar(&c.server.queueTimeout, "queue-timeout", 0, "internal: queue wait budget")
	fs.StringVar(&c.server.profile, "cpuprofile", "", "internal: write a CPU profile of the child server to this file")
	fs.DurationVar(&c.burn, "burn", 0, "internal: spin -burn-threads threads for this long (the step scenario's burner)")
}

// scenarioNames lists the scenarios in the order of the full matrix.
var scenarioNames = []string{"sleep", "cold", "cpu", "heavy", "step", "upload", "prio"}

// scenarioList returns the scenarios to run.
func (c config) scenarioList() []string {
	switch {
	case c.scenarios != "":
		return parseVariants(c.scenarios)
	case c.full:
		return []string{"sleep", "cold", "cpu", "heavy", "step"}
	}
	return []string{"cpu", "cold"}
}

// loadList returns the offered loads of scenario sc.
func (c config) loadList(sc string) ([]float64, error) {
	list := c.loads
	if list == "" {
		switch {
		case sc == "cold" && c.full:
			list = "1.2,3"
		case sc == "cold":
			list = "3"
		case sc == "heavy":
			list = "1.2,2,3"
		case sc == "step":
			list = strconv.FormatFloat(c.stepLoad, 'g', -1, 64)
		case c.full || sc == "sleep" || sc == "upload":
			list = "0.5,1.2,2,3"
		default:
			list = "1.2,3"
		}
	}
	var ms []float64
	for _, s := range strings.Split(list, ",") {
		m, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || m <= 0 {
			return nil, fmt.Errorf("bad load %q", s)
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// variantNames returns the names of the variants table, sorted.
func variantNames() []string {
	names := make([]string, 0, len(variants))
	for n := range variants {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
