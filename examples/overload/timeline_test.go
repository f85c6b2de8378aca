package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestTimeline(t *testing.T) {
	s := time.Second
	ends := []time.Duration{0, 100 * time.Millisecond, s, s + 1, 2*s + 999*time.Millisecond, 3 * s, -1}
	got := timeline(ends, s, 3*s)
	if want := []float64{2, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("timeline(1 s buckets) = %v, want %v", got, want)
	}
	got = timeline(ends, s/2, 3*s)
	if want := []float64{4, 0, 4, 0, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("timeline(500 ms buckets) = %v, want %v", got, want)
	}
}

func TestReach(t *testing.T) {
	s := time.Second
	rates := []float64{10, 50, 96, 100, 40, 60, 97, 100}
	tests := []struct {
		name     string
		from, to time.Duration
		target   float64
		want     time.Duration
	}{
		{"cold start", 0, 8 * s, 95, 3 * s},
		{"already there", 0, 8 * s, 10, s},
		{"after a drop", 4 * s, 8 * s, 90, 3 * s},
		{"inside a window", 4 * s, 6 * s, 55, 2 * s},
		{"never", 0, 8 * s, 101, -1},
		{"bucket past to", 4 * s, 6 * s, 90, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reach(rates, s, tt.from, tt.to, tt.target); got != tt.want {
				t.Errorf("reach(%v, %v, %v) = %v, want %v", tt.from, tt.to, tt.target, got, tt.want)
			}
		})
	}
}

// TestLognormalMean checks that the heavy scenario's render costs keep the
// mean of the cpu scenario's (1, as a multiple of it) while their tail is
// heavy.
func TestLognormalMean(t *testing.T) {
	for _, sigma := range []float64{0.5, 1, 1.5} {
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 400000
		var sum float64
		draws := make([]float64, n)
		for i := range draws {
			draws[i] = lognormal(rng.NormFloat64, sigma)
			sum += draws[i]
		}
		mean := sum / n
		// The standard error of the mean is sqrt(exp(σ²) − 1) / sqrt(n).
		se := math.Sqrt(math.Expm1(sigma*sigma)) / math.Sqrt(n)
		if math.Abs(mean-1) > 5*se {
			t.Errorf("σ %v: mean of %d draws = %.4f, want 1 ± %.4f", sigma, n, mean, 5*se)
		}
		slices.Sort(draws)
		median, p99 := draws[n/2], draws[n*99/100]
		if want := math.Exp(-sigma * sigma / 2); math.Abs(median-want) > 0.02*want {
			t.Errorf("σ %v: median = %.3f, want %.3f", sigma, median, want)
		}
		if p99 < 2 {
			t.Errorf("σ %v: p99 = %.2f × mean, want a heavy tail (> 2)", sigma, p99)
		}
	}
}

// TestStratifiedMean checks that runs of a few hundred consecutive render
// costs of the heavy scenario keep the mean far better than random draws,
// whose standard error alone is sqrt(e − 1)/sqrt(300) ≈ 7.6% at σ 1.
func TestStratifiedMean(t *testing.T) {
	const sigma, run = 1.0, 300 // about a second and a half of renders
	norm := stratified()
	costs := make([]float64, 30000)
	for i := range costs {
		costs[i] = lognormal(norm, sigma)
	}
	var sq float64
	n := 0
	for i := 0; i+run <= len(costs); i += run / 3 {
		var sum float64
		for _, c := range costs[i : i+run] {
			sum += c
		}
		sq += (sum/run - 1) * (sum/run - 1)
		n++
	}
	if rms := math.Sqrt(sq / float64(n)); rms > 0.035 {
		t.Errorf("runs of %d costs stray %.1f%% (rms) from the mean, want <= 3.5%%", run, 100*rms)
	}
	slices.Sort(costs)
	if p99 := costs[len(costs)*99/100]; p99 < 2 {
		t.Errorf("p99 = %.2f × mean, want a heavy tail (> 2)", p99)
	}
}

func TestFaster(t *testing.T) {
	s := time.Second
	tests := []struct {
		sc   string
		r, o result
		want bool
	}{
		{"cold", result{t95: s}, result{t95: 2 * s}, true},
		{"cold", result{t95: 2 * s}, result{t95: 2 * s}, false},
		{"cold", result{t95: 3 * s}, result{t95: -1}, true},
		{"cold", result{t95: -1}, result{t95: 5 * s}, false},
		{"step", result{down: 2 * s, up: -1}, result{down: 3 * s, up: s}, true},
		{"step", result{down: 3 * s, up: 2 * s}, result{down: 3 * s, up: s}, false},
		{"cpu", result{t95: s}, result{t95: 2 * s}, false},
	}
	for _, tt := range tests {
		if got := tt.r.faster(tt.o, tt.sc); got != tt.want {
			t.Errorf("%s: %+v.faster(%+v) = %v, want %v", tt.sc, tt.r, tt.o, got, tt.want)
		}
	}
}
