package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	fspriority "github.com/failsafe-go/failsafe-go/priority"

	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/frontdoor-go/frontdoor/concurrency"
	"github.com/frontdoor-go/frontdoor/priority"
)

// The prio scenario: the cpu scenario's render with two classes of
// request, critical and sheddable, told apart by the Frontdoor-Priority
// header (and, for the load generator's accounting, by the query: ?c for
// critical, ?s for sheddable). Each load is a multiple of capacity and the
// share of it that is critical, "1.2" (20% critical) or "2@0.75".

// prioDefaultLoads are the prio scenario's steps: 20% critical at 0.8x,
// 1.2x and 3x, then critical alone at 1.5x capacity beside sheddable at
// 0.5x.
const prioDefaultLoads = "0.8,1.2,3,2@0.75"

// prioDefaultShare is the critical share of a load given without one.
const prioDefaultShare = 0.2

var prioVariants = []string{"none", "frontdoor", "frontdoor-prio", "frontdoor-auto-prio", "failsafe-prio", "chi"}

func init() {
	variants["frontdoor-prio"] = variant{
		about: "frontdoor concurrency (limit, queue, queue timeout) with Priority: priority.Header(\"\")",
		wrap:  frontdoorPrio,
	}
	variants["frontdoor-auto-prio"] = variant{
		about: "frontdoor with no number and priorities: concurrency.ReserveP() and concurrency.New(Options{Priority: priority.Header(\"\")}), from Go's default GOMAXPROCS",
		wrap:  frontdoorAutoPrio,
		size:  func(c *serverConfig, cores int) { c.procs = cores },
	}
	variants["failsafe-prio"] = variant{
		about: "failsafe-go adaptivelimiter WithQueueing(2, 3) BuildPrioritized(NewPrioritizer()), calibrated every 1s; " +
			"critical = priority.High, sheddable = priority.Low, as a level (failsafehttp.NewHandlerWithLevel); AcquirePermitWithMaxWait(queue timeout) (429)",
		wrap: failsafePrio,
	}
}

// parsePrioLoads parses a comma-separated list of loads, each "m" or
// "m@share", into the loads and their critical shares.
func parsePrioLoads(list string) (loads, shares []float64, err error) {
	for _, s := range strings.Split(list, ",") {
		m, share, found := strings.Cut(strings.TrimSpace(s), "@")
		x, err1 := strconv.ParseFloat(m, 64)
		p := prioDefaultShare
		var err2 error
		if found {
			p, err2 = strconv.ParseFloat(share, 64)
		}
		if err1 != nil || err2 != nil || x <= 0 || p < 0 || p > 1 {
			return nil, nil, fmt.Errorf("bad load %q (want m or m@share, share in [0, 1])", s)
		}
		loads, shares = append(loads, x), append(shares, p)
	}
	return loads, shares, nil
}

// frontdoorPrio is frontdoor's CPU-bound form with priorities by header.
func frontdoorPrio(s *server, h http.Handler) http.Handler {
	l := concurrency.New(concurrency.Options{
		Limit: s.limit, MaxQueue: s.backlog, QueueTimeout: s.queueTimeout,
		Priority: priority.Header(""),
	})
	return limited(s, l, h)
}

// frontdoorAutoPrio is frontdoor's CPU-bound form without a number, with
// priorities by header.
func frontdoorAutoPrio(s *server, h http.Handler) http.Handler {
	concurrency.ReserveP()
	l := concurrency.New(concurrency.Options{Priority: priority.Header("")})
	return limited(s, l, h)
}

// failsafePrio is failsafe-go's prioritized adaptive limiter, used as its
// documentation shows: a level in the context (from the request's class,
// as failsafehttp.NewHandlerWithLevel turns a priority into one),
// AcquirePermitWithMaxWait, Record when done; 429 when refused.
func failsafePrio(s *server, h http.Handler) http.Handler {
	p := adaptivelimiter.NewPrioritizer()
	p.ScheduleCalibrations(context.Background(), time.Second)
	l := adaptivelimiter.NewBuilder[*http.Response]().WithQueueing(2, 3).BuildPrioritized(p)
	s.debug = func() any {
		return struct {
			Limit, Inflight, Queued, Threshold int
			RejectionRate                      float64
		}{l.Limit(), l.Inflight(), l.Queued(), p.RejectionThreshold(), p.RejectionRate()}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		class := fspriority.Low
		if priority.Header("")(r) >= priority.Critical {
			class = fspriority.High
		}
		ctx := fspriority.ContextWithLevel(r.Context(), class.RandomLevel())
		permit, err := l.AcquirePermitWithMaxWait(ctx, s.queueTimeout)
		if err != nil {
			http.Error(w, err.Error(), http.StatusTooManyRequests)
			return
		}
		defer permit.Record()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// runPrio measures the prio scenario load by load: capacity right before
// each load, then every variant at that load with the same offered rate,
// one after the other, so that the host's drift over a run (it is shared)
// falls between loads rather than between the variants compared.
func (sc *scenario) runPrio(c config) error {
	s := sc.step
	fmt.Printf("capacity: none with %d closed-loop clients for %s, right before each load; every variant of a load gets the same offered rate\n",
		s.capClients, c.capDur)
	printLegend(sc.variants)
	printPrioHeader()
	var res []prioResult
	for i, m := range sc.loads {
		s.crit = sc.shares[i]
		capacity := measureCapacity(withVariant(sc.config("none"), "none"), s, c.capDur, false)
		for _, v := range sc.variants {
			srv := start(sc.config(v))
			t0, g0 := time.Now(), selfCPU()
			o, _ := s.run(srv, m*capacity, c.seed)
			o.genCPU = float64(selfCPU()-g0) / float64(time.Since(t0))
			cpu, _ := srv.stop()
			o.serverCPU = float64(cpu) / float64(time.Since(t0))
			printPrioRow(v, m, s.crit, capacity, o)
			res = append(res, prioResult{variant: v, load: m, share: s.crit, pct: 100 * o.goodput / capacity, goodput: o.goodput,
				critOK: o.classes[1].pct(o.classes[1].served), shdOK: o.classes[0].pct(o.classes[0].served),
				critP99: quantile(o.classes[1].servedLat, .99), mixed: o.mixed, refused: o.refused})
		}
	}
	printPrioReading(res, s.timeout)
	return nil
}

// classTargeter returns a vegeta.Targeter of GETs to url, each critical
// with probability share (drawn from a generator seeded with seed), the
// class in the priority header and in the query.
func classTargeter(url string, share float64, seed uint64) vegeta.Targeter {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, 7))
	crit := http.Header{priority.DefaultHeader: {priority.Critical.String()}}
	shed := http.Header{priority.DefaultHeader: {priority.Sheddable.String()}}
	return func(t *vegeta.Target) error {
		mu.Lock()
		c := rng.Float64() < share
		mu.Unlock()
		t.Method = "GET"
		if c {
			t.URL, t.Header = url+"?c", crit
		} else {
			t.URL, t.Header = url+"?s", shed
		}
		return nil
	}
}

// classOutcome counts the requests of one class.
type classOutcome struct {
	sent, served, refused, timeouts, errs int
	servedLat                             []time.Duration
}

func (c *classOutcome) pct(n int) float64 {
	if c.sent == 0 {
		return 0
	}
	return 100 * float64(n) / float64(c.sent)
}

// classOf returns the class of a result by its URL: 1 critical, 0
// sheddable, -1 neither.
func classOf(url string) int {
	switch {
	case strings.HasSuffix(url, "?c"):
		return 1
	case strings.HasSuffix(url, "?s"):
		return 0
	}
	return -1
}

// mixedSeconds counts the seconds of the attack (by arrival) in which a
// critical request was refused or timed out while a sheddable one was
// served.
func mixedSeconds(critFailed, shedServed map[int]bool) int {
	n := 0
	for s := range critFailed {
		if shedServed[s] {
			n++
		}
	}
	return n
}

func printPrioHeader() {
	fmt.Printf("%-15s %6s %9s %8s %6s | %8s %7s %7s %8s | %8s %7s %7s %8s | %5s %6s %6s\n",
		"variant", "cap/s", "load", "goodput", "%cap",
		"crit ok%", "ref%", "t/o%", "p99 ok", "shed ok%", "ref%", "t/o%", "p99 ok", "mixed", "srvCPU", "genCPU")
}

func printPrioRow(v string, m, share, capacity float64, o outcome) {
	c, s := &o.classes[1], &o.classes[0]
	fmt.Printf("%-15s %6.0f %4.1fx@%.2f %6.0f/s %5.0f%% | %7.2f%% %6.2f%% %6.2f%% %8s | %7.1f%% %6.1f%% %6.1f%% %8s | %4ds %6.2f %6.2f\n",
		v, capacity, m, share, o.goodput, 100*o.goodput/capacity,
		c.pct(c.served), c.pct(c.refused), c.pct(c.timeouts), ms(quantile(c.servedLat, .99)),
		s.pct(s.served), s.pct(s.refused), s.pct(s.timeouts), ms(quantile(s.servedLat, .99)),
		o.mixed, o.serverCPU, o.genCPU)
}

// prioResult is a row of the prio table as its reading compares them.
type prioResult struct {
	variant       string
	load, share   float64
	pct           float64 // goodput, % of capacity
	goodput       float64 // 2xx/s in the goodput window
	critOK, shdOK float64 // % of each class served
	critP99       time.Duration
	mixed         int
	refused       int // requests of both classes refused (503, 429)
}

// printPrioReading checks frontdoor-prio against the targets: critical
// success and p99 at every overload, no second with a critical request
// refused while sheddable ones are served, goodput against frontdoor
// without priorities, nothing refused below capacity.
func printPrioReading(res []prioResult, timeout time.Duration) {
	by := map[string]map[float64]prioResult{}
	for _, r := range res {
		if by[r.variant] == nil {
			by[r.variant] = map[float64]prioResult{}
		}
		by[r.variant][r.load*10+r.share] = r
	}
	for _, r := range res {
		if r.variant != "frontdoor-prio" {
			continue
		}
		k := r.load*10 + r.share
		fmt.Printf("reading at %.1fx, %.0f%% critical: frontdoor-prio critical %.2f%% served (p99 %s), sheddable %.1f%%, %d mixed seconds, goodput %.0f%% of capacity",
			r.load, 100*r.share, r.critOK, ms(r.critP99), r.shdOK, r.mixed, r.pct)
		if b, ok := by["frontdoor"][k]; ok && b.goodput > 0 {
			fmt.Printf(" = %.0f%% of frontdoor without priorities (critical %.2f%%)", 100*r.goodput/b.goodput, b.critOK)
		}
		fmt.Println()
		for _, v := range []string{"frontdoor-auto-prio", "failsafe-prio", "chi", "none"} {
			if o, ok := by[v][k]; ok {
				fmt.Printf("  %-15s critical %.2f%% (p99 %s), sheddable %.1f%%, goodput %.0f%%\n", v, o.critOK, ms(o.critP99), o.shdOK, o.pct)
			}
		}
		critLoad := r.load * r.share
		switch {
		case r.load < 1:
			fmt.Printf("  target below capacity, nothing refused at any level: %s (%d refused)\n", met(r.refused == 0), r.refused)
		case critLoad < 1:
			fmt.Printf("  target critical >= 99.5%% within the %s client timeout, no mixed second: %s\n", timeout,
				met(r.critOK >= 99.5 && r.critP99 <= timeout && r.mixed == 0))
			if b, ok := by["frontdoor"][k]; ok && b.goodput > 0 {
				fmt.Printf("  target goodput >= 95%% of frontdoor without priorities: %s\n", met(r.goodput >= 0.95*b.goodput))
			}
		default:
			fmt.Printf("  critical alone over capacity: sheddable served %.1f%% (target: nothing), goodput %.0f%% (target: no collapse)\n", r.shdOK, r.pct)
		}
	}
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
