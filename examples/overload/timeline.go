package main

import "time"

// timeline returns the 2xx completed in each bucket of width w over [0, d),
// as rates per second; ends are the completion times of the 2xx, from the
// start of the step. Completions at or after d are left out.
func timeline(ends []time.Duration, w, d time.Duration) []float64 {
	n := int((d + w - 1) / w)
	rates := make([]float64, n)
	for _, e := range ends {
		if e < 0 || e >= d {
			continue
		}
		rates[e/w]++
	}
	for i := range rates {
		rates[i] /= w.Seconds()
	}
	return rates
}

// reach returns how long after from the rates of timeline (buckets of
// width w) first reach target: the end of the first bucket that starts at
// or after from, ends by to and has a rate of at least target, less from.
// It returns -1 if no such bucket exists.
func reach(rates []float64, w, from, to time.Duration, target float64) time.Duration {
	for i, r := range rates {
		start, end := time.Duration(i)*w, time.Duration(i+1)*w
		if start < from || end > to {
			continue
		}
		if r >= target {
			return end - from
		}
	}
	return -1
}
