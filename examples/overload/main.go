// Command overload measures, in one run, how net/http servers behave under
// open-loop overload with no protection, with chi's ThrottleBacklog and
// with frontdoor, and prints a table: scenario × variant × offered load →
// goodput, client timeouts, refusals, latency.
//
//	go run ./examples/overload
//
// Each server runs in a child process (this binary re-executed with
// -serve) so that the load generator's CPU scheduling and GC stay out of
// the server's Go runtime, and each variant gets the GOMAXPROCS it is
// documented to need. Capacity is measured at the start of each scenario;
// the offered loads are multiples of it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
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

	scenarios := flag.String("scenarios", "sleep,cpu", "scenarios to run: sleep (seed 000), cpu (seed 003)")
	variants := flag.String("variants", "none,chi,frontdoor", "variants to compare")
	loads := flag.String("loads", "0.5,1.2,2,3", "offered loads, as multiples of the measured capacity")
	dur := flag.Duration("duration", 1500*time.Millisecond, "duration of each load step")
	capDur := flag.Duration("capacity-duration", 1500*time.Millisecond, "duration of the capacity measurement")
	renderTime := flag.Duration("render", 8*time.Millisecond, "cpu: CPU time of one render (calibrated to sha256 rounds)")
	cpuTimeout := flag.Duration("cpu-timeout", 100*time.Millisecond, "cpu: client timeout")
	cpuLimit := flag.Int("cpu-limit", runtime.NumCPU()+1, "cpu: renders at once (chi and frontdoor); the sizing rule: cores+1")
	flag.BoolVar(&c.headroom, "headroom", true, "cpu: frontdoor follows the sizing rule GOMAXPROCS >= limit+1")
	procs := flag.Int("procs", runtime.NumCPU(), "GOMAXPROCS the servers start with")
	sleepTime := flag.Duration("sleep-time", 200*time.Millisecond, "sleep: handler duration")
	sleepLimit := flag.Int("sleep-limit", 50, "sleep: backend connections (limit)")
	sleepClients := flag.Int("sleep-clients", 200, "sleep: clients (max requests in flight)")
	sleepTimeout := flag.Duration("sleep-timeout", time.Second, "sleep: client timeout")
	seed := flag.Uint64("seed", 1, "seed of the Poisson arrivals")
	flag.Parse()

	if *serveMode {
		serve(c)
		return
	}
	fmt.Printf("overload: %d cores, GOMAXPROCS %d (load generator), %s per step\n",
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
		var s step
		switch sc {
		case "cpu":
			iters := calibrate(*renderTime)
			base = serverConfig{scenario: "cpu", limit: *cpuLimit, iters: iters,
				queueTimeout: *cpuTimeout / 2, backlog: 8 * *cpuLimit, headroom: c.headroom}
			s = step{timeout: *cpuTimeout, clients: 0, capClients: 2 * runtime.NumCPU()}
			fmt.Printf("\nscenario cpu (seed 003): render = %d sha256 rounds ≈ %s of CPU, limit %d, queue %d / %s, client timeout %s\n",
				iters, *renderTime, base.limit, base.backlog, base.queueTimeout, *cpuTimeout)
		case "sleep":
			base = serverConfig{scenario: "sleep", limit: *sleepLimit, sleep: *sleepTime,
				queueTimeout: *sleepTimeout / 2, backlog: *sleepLimit}
			s = step{timeout: *sleepTimeout, clients: uint64(*sleepClients), capClients: 2 * *sleepLimit}
			fmt.Printf("\nscenario sleep (seed 000): %s handler holding 1 of %d backend connections (ideal %.0f/s), %d clients, client timeout %s\n",
				*sleepTime, *sleepLimit, float64(*sleepLimit)/sleepTime.Seconds(), *sleepClients, *sleepTimeout)
		default:
			fatal(fmt.Errorf("unknown scenario %q", sc))
		}
		capCfg := base
		capCfg.variant = "none"
		srv := start(capCfg, *procs)
		capacity := closedLoop(srv.url, s.capClients, *capDur)
		srv.stop()
		fmt.Printf("capacity (none, %d closed-loop clients, %s): %.0f/s\n", s.capClients, *capDur, capacity)
		printHeader()
		for _, v := range strings.Split(*variants, ",") {
			cfg := base
			cfg.variant = v
			for _, m := range multiples {
				srv := start(cfg, *procs)
				t0, g0, b0 := time.Now(), selfCPU(), busyCPU()
				o := attack(srv.url, m*capacity, *dur, s.timeout, s.clients, *seed)
				o.genCPU = float64(selfCPU()-g0) / float64(time.Since(t0))
				o.serverCPU = float64(srv.stop()) / float64(time.Since(t0))
				if b0 >= 0 {
					o.otherCPU = float64(busyCPU()-b0)/float64(time.Since(t0)) - o.genCPU - o.serverCPU
				}
				printRow(sc, v, srv.procs, m, capacity, o)
			}
		}
	}
}

// step holds how a scenario is driven.
type step struct {
	timeout    time.Duration
	clients    uint64 // cap on requests in flight, 0 = none (pure open loop)
	capClients int    // closed-loop clients of the capacity measurement
}

func printHeader() {
	fmt.Printf("%-6s %-10s %5s %5s %8s %8s %9s %6s %9s %8s %8s %8s %8s %6s %6s %6s %6s\n",
		"scen", "variant", "procs", "load", "offered", "sent/s", "goodput", "%cap",
		"timeout%", "refused%", "p50 ok", "p99 ok", "p99 ref", "err%", "srvCPU", "genCPU", "other")
}

func printRow(sc, v string, procs int, m, capacity float64, o outcome) {
	good := o.goodput
	fmt.Printf("%-6s %-10s %5d %4.1fx %7.0f/s %7.0f/s %8.0f/s %5.0f%% %8.1f%% %7.1f%% %8s %8s %8s %5.1f%% %6.2f %6.2f %6.2f\n",
		sc, v, procs, m, m*capacity, float64(o.sent)/o.secs, good, 100*good/capacity,
		o.pct(o.timeouts), o.pct(o.refused),
		ms(quantile(o.servedLat, .5)), ms(quantile(o.servedLat, .99)), ms(quantile(o.refusedLat, .99)),
		o.pct(o.errs), o.serverCPU, o.genCPU, max(o.otherCPU, 0))
}

func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + "ms"
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

// child is a running child server.
type child struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
	url   string
	procs int
}

// start re-executes this binary as a server for cfg with GOMAXPROCS procs.
func start(cfg serverConfig, procs int) *child {
	exe, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	cmd := exec.Command(exe, "-serve", "-scenario", cfg.scenario, "-variant", cfg.variant,
		"-limit", strconv.Itoa(cfg.limit), "-iters", strconv.Itoa(cfg.iters),
		"-backlog", strconv.Itoa(cfg.backlog), "-sleep", cfg.sleep.String(),
		"-queue-timeout", cfg.queueTimeout.String(), "-headroom="+strconv.FormatBool(cfg.headroom))
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fatal(err)
	}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		fatal(fmt.Errorf("child server: %v", err))
	}
	var addr string
	var p int
	fmt.Sscan(line, &addr, &p)
	return &child{cmd: cmd, stdin: in, url: "http://" + addr + "/", procs: p}
}

// stop closes the child's stdin, which ends it, waits for it and returns
// the CPU time (user + system) it used.
func (c *child) stop() time.Duration {
	c.stdin.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
	if st := c.cmd.ProcessState; st != nil {
		return st.UserTime() + st.SystemTime()
	}
	return 0
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "overload:", err)
	os.Exit(1)
}

// selfCPU returns the CPU time (user + system) this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// busyCPU returns the CPU time all processes of the machine have used
// (from /proc/stat), or -1 where that is not available.
func busyCPU() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return -1
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal
	if len(f) < 9 {
		return -1
	}
	var ticks int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ = 100
}
