package main

import (
	"fmt"
	"strconv"
	"time"
)

func printHeader() {
	fmt.Printf("%-6s %-10s %5s %6s %5s %8s %8s %9s %6s %9s %8s %8s %8s %8s %6s %6s %6s %6s\n",
		"scen", "variant", "procs", "cap/s", "load", "offered", "sent/s", "goodput", "%cap",
		"timeout%", "refused%", "p50 ok", "p99 ok", "p99 ref", "err%", "srvCPU", "genCPU", "other")
}

func printRow(sc, v string, procs int, m, capacity float64, o outcome) {
	good := o.goodput
	fmt.Printf("%-6s %-10s %5d %6.0f %4.1fx %7.0f/s %7.0f/s %8.0f/s %5.0f%% %8.1f%% %7.1f%% %8s %8s %8s %5.1f%% %6.2f %6.2f %6.2f\n",
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
