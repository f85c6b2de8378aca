// Command typedproxy compares two ways for a Go reverse proxy to reach its
// upstream: a second HTTP hop (httputil.ReverseProxy with keep-alive) and
// typed, length-prefixed protobuf frames over pooled TCP connections
// (package typed), with and without the frame buffer pool.
//
// It runs three processes, all on 127.0.0.1 ephemeral ports: this one
// holds the proxies; a child serves the same upstream work over HTTP and
// over typed TCP; another child per run is the load generator, a closed
// loop of -c clients (a minimal keep-alive HTTP/1.1 client like ab's by
// default, net/http's with -client nethttp). Keeping client and upstream
// out of the proxy's process makes the allocation and CPU figures the
// proxy's own; the upstream's and the client's CPU are read from the
// kernel. The variants take turns over -rounds rounds, so a noisy
// neighbour hurts them alike.
//
//	go run ./examples/typedproxy -d 5s -c 20
//
// Every proxy is wrapped in inflight.Track, as any frontdoor middleware
// would wrap it; the table shows the peak it saw.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/frontdoor-go/frontdoor/examples/typedproxy/typed"
	"github.com/frontdoor-go/frontdoor/inflight"
)

func main() {
	role := flag.String("role", "", "internal: upstream or load (child processes)")
	target := flag.String("url", "", "internal: URL the load child requests")
	d := flag.Duration("d", 5*time.Second, "measured time per variant, split over the rounds")
	warmup := flag.Duration("warmup", 300*time.Millisecond, "warm-up before each measured run")
	rounds := flag.Int("rounds", 3, "rounds; each variant runs once per round")
	conc := flag.Int("c", 20, "concurrent clients (closed loop)")
	conns := flag.Int("conns", 0, "upstream connections per proxy (default -c)")
	client := flag.String("client", "raw", "load client: raw (minimal HTTP/1.1, like ab) or nethttp (net/http.Client)")
	flag.Parse()
	var err error
	switch *role {
	case "upstream":
		err = runUpstream()
	case "load":
		err = runLoad(*target, *conc, *warmup, *d, *client == "raw")
	case "":
		if *client != "raw" && *client != "nethttp" {
			err = fmt.Errorf("unknown -client %q", *client)
			break
		}
		if *conns == 0 {
			*conns = *conc
		}
		err = compare(*d, *warmup, *rounds, *conc, *conns, *client)
	default:
		err = fmt.Errorf("unknown -role %q", *role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "typedproxy:", err)
		os.Exit(1)
	}
}

// A variant is one proxy under test, served from this process.
type variant struct {
	name        string
	h           http.Handler
	url         string
	served      atomic.Uint64 // requests the proxy handled
	servedTotal uint64        // of which during the runs
	inFlight    inflight.Counter
	res         loadResult
	mallocs     uint64
	cpu         time.Duration // this process's CPU time during the runs
	clientCPU   time.Duration
	upstreamCPU time.Duration
}

func compare(d, warmup time.Duration, rounds, conc, conns int, client string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	up, err := startUpstream(self)
	if err != nil {
		return err
	}
	defer up.stop()

	httpURL, _ := url.Parse("http://" + up.httpAddr)
	keepAlive := httputil.NewSingleHostReverseProxy(httpURL)
	keepAliveTransport := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	keepAlive.Transport = keepAliveTransport
	defaults := httputil.NewSingleHostReverseProxy(httpURL)
	defaultsTransport := http.DefaultTransport.(*http.Transport).Clone()
	defaults.Transport = defaultsTransport
	pooled := typed.NewFront(typed.FrontOptions{Addr: up.typedAddr, MaxConns: conns})
	unpooled := typed.NewFront(typed.FrontOptions{Addr: up.typedAddr, MaxConns: conns, NoBufferPool: true})
	defer pooled.Close()
	defer unpooled.Close()
	defer keepAliveTransport.CloseIdleConnections()
	defer defaultsTransport.CloseIdleConnections()

	vs := []*variant{
		{name: "http reverse proxy (keep-alive, idle/host = conns)", h: keepAlive},
		{name: "http reverse proxy (DefaultTransport, idle/host = 2)", h: defaults},
		{name: "typed TCP, buffer pool", h: pooled},
		{name: "typed TCP, no buffer pool", h: unpooled},
	}
	for _, v := range vs {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: count(&v.served, inflight.Track(&v.inFlight)(v.h)), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(l)
		defer srv.Close()
		v.url = "http://" + l.Addr().String() + "/v1/hello"
	}

	fmt.Printf("GOMAXPROCS=%d NumCPU=%d, %d %s clients (closed loop), %d upstream conns/proxy, %v per variant in %d rounds (+%v warm-up each)\n",
		runtime.GOMAXPROCS(0), runtime.NumCPU(), conc, client, conns, d, rounds, warmup)
	per := d / time.Duration(rounds)
	for range rounds {
		for _, v := range vs {
			if err := v.run(self, up, client, conc, warmup, per); err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
		}
	}
	printTable(vs)
	return nil
}

// run drives one load run against v and adds what it measured.
func (v *variant) run(self string, up *upstreamProcess, client string, conc int, warmup, d time.Duration) error {
	cmd := newChild(self, "-role=load", "-url="+v.url, fmt.Sprint("-c=", conc),
		"-warmup="+warmup.String(), "-d="+d.String(), "-client="+client)
	up0 := up.cpuTime()
	served0 := v.served.Load()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := cpuTime()
	out, err := cmd.Output()
	cpu1 := cpuTime()
	runtime.ReadMemStats(&m1)
	if err != nil {
		return err
	}
	v.upstreamCPU += up.cpuTime() - up0
	v.clientCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	var res loadResult
	if err := json.Unmarshal(out, &res); err != nil {
		return err
	}
	v.res.add(res)
	// Over the whole run, warm-up included, per request the proxy served.
	v.servedTotal += v.served.Load() - served0
	v.mallocs += m1.Mallocs - m0.Mallocs
	v.cpu += cpu1 - cpu0
	return nil
}

// printTable prints the results as a markdown table.
func printTable(vs []*variant) {
	fmt.Println()
	fmt.Println("| variant | req/s | p50 | p99 | errors | allocs/req proxy | CPU/req proxy | CPU/req upstream | CPU/req client | peak in flight | req/s vs HTTP proxy |")
	fmt.Println("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	base := vs[0].rate()
	for _, v := range vs {
		n := float64(v.servedTotal)
		perReq := func(d time.Duration) float64 { return float64(d.Microseconds()) / n }
		fmt.Printf("| %s | %.0f | %v | %v | %d | %.1f | %.1f µs | %.1f µs | %.1f µs | %d | %.2fx |\n",
			v.name, v.rate(), round(v.res.quantile(0.50)), round(v.res.quantile(0.99)), v.res.Errors,
			float64(v.mallocs)/n, perReq(v.cpu), perReq(v.upstreamCPU), perReq(v.clientCPU),
			v.inFlight.Peak(), v.rate()/base)
	}
}

func (v *variant) rate() float64 { return float64(v.res.Requests) / v.res.Elapsed.Seconds() }

func round(d time.Duration) time.Duration {
	if d > time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// count counts the requests a proxy served.
func count(n *atomic.Uint64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		next.ServeHTTP(w, r)
	})
}

// cpuTime returns the user and system CPU time of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func newChild(self string, args ...string) *exec.Cmd {
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	return cmd
}
