package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

func printHeader() {
	fmt.Printf("%-6s %-15s %5s %6s %5s %8s %8s %9s %6s %9s %8s %8s %8s %8s %6s %6s %6s %6s\n",
		"scen", "variant", "procs", "cap/s", "load", "offered", "sent/s", "goodput", "%cap",
		"timeout%", "refused%", "p50 ok", "p99 ok", "p99 ref", "err%", "srvCPU", "genCPU", "other")
}

func printRow(sc, v string, procs int, m, capacity float64, o outcome) {
	good := o.goodput
	fmt.Printf("%-6s %-15s %5d %6.0f %4.1fx %7.0f/s %7.0f/s %8.0f/s %5.0f%% %8.1f%% %7.1f%% %8s %8s %8s %5.1f%% %6.2f %6.2f %6.2f\n",
		sc, v, procs, capacity, m, m*capacity, float64(o.sent)/o.secs, good, 100*good/capacity,
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

// printUploadHeader prints the upload scenario's columns: those of the
// other scenarios for the normal clients, then the slow uploads started
// per second and how they ended (2xx, 503, anything else, skipped at the
// cap), their median time to a 2xx, the renders of both kinds of client
// completed per second in the goodput window as a share of capacity, the
// render slots held on average by the handler's body reads (slot-seconds
// in io.ReadAll over the step's wall time) and the longest such read,
// the requests shed refused (both kinds of client), the uploads
// bodybuffer read in full that concurrency then refused, the body bytes
// bodybuffer read, the peak of its buffers, the step's wall time (the load, then the
// last uploads finishing) over which the CPU columns are averaged.
func printUploadHeader() {
	fmt.Printf("%-6s %-11s %5s %6s %5s %8s %8s %9s %6s %9s %8s %8s %8s %8s | %6s %5s %5s %5s %5s %7s %7s | %9s %8s %5s %7s %7s %8s %5s | %6s %6s %6s\n",
		"scen", "variant", "procs", "cap/s", "load", "offered", "sent/s", "goodput", "%cap",
		"timeout%", "refused%", "p50 ok", "p99 ok", "p99 ref",
		"up/s", "upOK", "up503", "upBad", "upSkp", "p50 up", "all%cap",
		"slotsRead", "maxRead", "shed", "readRef", "readMiB", "bufPeak", "wall", "srvCPU", "genCPU", "other")
}

func printUploadRow(sc, v string, procs int, m, capacity float64, o outcome, u uploadOutcome, st serverStats, wall time.Duration) {
	good := o.goodput
	peak := "-"
	switch {
	case st.BufMemPeak >= 1<<20:
		peak = strconv.FormatFloat(float64(st.BufMemPeak)/(1<<20), 'f', 1, 64) + "MiB"
	case st.BufMemPeak > 0:
		peak = strconv.FormatInt(st.BufMemPeak>>10, 10) + "KiB"
	}
	shedN, readRef, readMiB := "-", "-", "-"
	if v == "frontdoor" || v == "split" {
		shedN = strconv.FormatUint(st.Shed, 10)
	}
	if v == "bodybuffer" || v == "frontdoor" || v == "split" {
		readRef = strconv.FormatInt(st.BigIn-st.BigHandled, 10)
		readMiB = strconv.FormatFloat(float64(st.BufBytes)/(1<<20), 'f', 0, 64)
	}
	fmt.Printf("%-6s %-11s %5d %6.0f %4.1fx %7.0f/s %7.0f/s %8.0f/s %5.0f%% %8.1f%% %7.1f%% %8s %8s %8s | %6.1f %5d %5d %5d %5d %7s %6.0f%% | %9.2f %8s %5s %7s %7s %8s %4.1fs | %6.2f %6.2f %6.2f\n",
		sc, v, procs, capacity, m, m*capacity, float64(o.sent)/o.secs, good, 100*good/capacity,
		o.pct(o.timeouts), o.pct(o.refused),
		ms(quantile(o.servedLat, .5)), ms(quantile(o.servedLat, .99)), ms(quantile(o.refusedLat, .99)),
		float64(u.started)/o.secs, u.ok, u.refused, u.failed(), u.skipped, ms(quantile(u.okLat, .5)),
		100*(good+float64(u.okInWindow)/o.window)/capacity,
		float64(st.ReadNanos)/float64(wall), ms(time.Duration(st.MaxReadNanos)), shedN, readRef, readMiB, peak, wall.Seconds(),
		o.serverCPU, o.genCPU, max(o.otherCPU, 0))
}

// result is one row of a table, as the reading compares them.
type result struct {
	variant                 string
	procs                   int
	load, capacity, capBurn float64
	pct                     float64 // goodput as % of capacity (of the moment, in the step scenario)
	timeouts, refused       float64 // % of the requests sent
	okP99, refP99           time.Duration
	rates                   []float64     // per-second goodput (timeline scenarios)
	t95, down, up           time.Duration // cold: time to 95%; step: back to 90% after the burner starts, stops; -1: never

	rounds int     // medians: how many rounds the figures are the medians of (0: one result)
	lo, hi float64 // medians: the lowest and highest pct of the rounds
}

// newResult summarizes the outcome o of variant v at load m.
func newResult(v string, procs int, m, capacity, capBurn float64, o outcome, s step) result {
	r := result{variant: v, procs: procs, load: m, capacity: capacity, capBurn: capBurn,
		pct: 100 * o.goodput / capacity, timeouts: o.pct(o.timeouts), refused: o.pct(o.refused),
		okP99: quantile(o.servedLat, .99), refP99: quantile(o.refusedLat, .99)}
	if !s.timeline {
		return r
	}
	r.rates = timeline(o.okEnds, time.Second, s.dur)
	if s.burnTo > s.burnFrom {
		burnt := (s.burnTo - s.burnFrom).Seconds()
		r.pct = 100 * float64(len(o.okEnds)) / (capacity*(s.dur.Seconds()-burnt) + capBurn*burnt)
		r.down = reach(r.rates, time.Second, s.burnFrom, s.burnTo, 0.9*capBurn)
		r.up = reach(r.rates, time.Second, s.burnTo, s.dur, 0.9*capacity)
	} else {
		r.t95 = reach(r.rates, time.Second, 0, s.dur, 0.95*capacity)
	}
	for i := range r.rates {
		c := capacity
		if at := time.Duration(i) * time.Second; at >= s.burnFrom && at < s.burnTo {
			c = capBurn
		}
		r.rates[i] = 100 * r.rates[i] / c
	}
	return r
}

// printLegend says what each variant of the table is.
func printLegend(vs []string) {
	for _, v := range vs {
		fmt.Printf("  %-15s %s\n", v, variants[v].about)
	}
}

func printTimelineHeader(sc string) {
	marks := "t95"
	if sc == "step" {
		marks = "down    up"
	}
	fmt.Printf("%-6s %-15s %5s %6s %7s %5s %8s %8s %9s %6s %9s %8s %8s %8s %9s | %s\n",
		"scen", "variant", "procs", "cap/s", "capBurn", "load", "offered", "sent/s", "goodput", "%cap",
		"timeout%", "refused%", "p99 ok", "p99 ref", marks, "goodput per second, % of capacity")
}

func printTimelineRow(sc string, r result, o outcome) {
	marks := secs(r.t95)
	if sc == "step" {
		marks = fmt.Sprintf("%4s %5s", secs(r.down), secs(r.up))
	}
	per := ""
	for _, p := range r.rates {
		per += fmt.Sprintf(" %3.0f", p)
	}
	fmt.Printf("%-6s %-15s %5d %6.0f %7.0f %4.1fx %7.0f/s %7.0f/s %8.0f/s %5.0f%% %8.1f%% %7.1f%% %8s %8s %9s |%s\n",
		sc, r.variant, r.procs, r.capacity, r.capBurn, r.load, r.load*r.capacity, float64(o.sent)/o.secs, o.goodput, r.pct,
		r.timeouts, r.refused, ms(quantile(o.servedLat, .99)), ms(r.refP99), marks, per)
}

// secs formats a time to reach a target: whole seconds, or "never".
func secs(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 0, 64) + "s"
}

// brief is a result in a few words for the reading.
func (r result) brief(sc string) string {
	s := fmt.Sprintf("%s %.0f%%", r.variant, r.pct)
	if r.rounds > 1 {
		s += fmt.Sprintf(" (%.0f-%.0f)", r.lo, r.hi)
	}
	switch sc {
	case "cold":
		s += " t95 " + secs(r.t95)
	case "step":
		s += " down " + secs(r.down) + " up " + secs(r.up)
	}
	if r.timeouts >= 1 {
		s += fmt.Sprintf(" %.0f%% t/o", r.timeouts)
	}
	if r.okP99 > 0 {
		s += " ok p99 " + ms(r.okP99)
	}
	if r.refP99 > 0 {
		s += " ref p99 " + ms(r.refP99)
	}
	return s
}

// equalPoints is how close to the oracle's goodput (in points of capacity)
// a variant counts as equal in the reading.
const equalPoints = 2

// printReading says, for each load, which variants are ahead of the
// oracle (frontdoor with the hand-tuned limit), equal to it or behind it
// on goodput.
func printReading(sc string, res []result) {
	oracle := map[float64]result{}
	for _, r := range res {
		if r.variant == "frontdoor" {
			oracle[r.load] = r
		}
	}
	for _, m := range loadsOf(res) {
		o, ok := oracle[m]
		if !ok {
			continue
		}
		var ahead, equal, behind, faster []string
		for _, r := range res {
			if r.load != m || r.variant == "frontdoor" {
				continue
			}
			if r.faster(o, sc) {
				faster = append(faster, r.brief(sc))
			}
			switch d := r.pct - o.pct; {
			case d > equalPoints:
				ahead = append(ahead, r.brief(sc))
			case d >= -equalPoints:
				equal = append(equal, r.brief(sc))
			default:
				behind = append(behind, r.brief(sc))
			}
		}
		fmt.Printf("reading at %.1fx, goodput against the oracle %s:\n", m, o.brief(sc))
		for _, l := range []struct {
			what string
			vs   []string
		}{{fmt.Sprintf("ahead (> +%d points)", equalPoints), ahead}, {fmt.Sprintf("equal (±%d points)", equalPoints), equal}, {"behind", behind},
			{"faster to the target", faster}} {
			if l.what == "faster to the target" && sc != "cold" && sc != "step" {
				continue
			}
			list := "-"
			if len(l.vs) > 0 {
				list = strings.Join(l.vs, "; ")
			}
			fmt.Printf("  %-20s %s\n", l.what+":", list)
		}
	}
}

// faster reports whether r reached its target sooner than o in a timeline
// scenario: t95 (cold), or down or up (step); never counts as forever.
func (r result) faster(o result, sc string) bool {
	sooner := func(a, b time.Duration) bool { return a >= 0 && (b < 0 || a < b) }
	switch sc {
	case "cold":
		return sooner(r.t95, o.t95)
	case "step":
		return sooner(r.down, o.down) || sooner(r.up, o.up)
	}
	return false
}

// loadsOf returns the loads of res in the order they first appear.
func loadsOf(res []result) []float64 {
	var ms []float64
	for _, r := range res {
		if !slices.Contains(ms, r.load) {
			ms = append(ms, r.load)
		}
	}
	return ms
}
