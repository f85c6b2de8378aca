package bodybuffer

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestNewPanics(t *testing.T) {
	for _, o := range []Options{
		{MaxBytes: -2}, {MemBytes: -1}, {IdleTimeout: -2}, {Timeout: -2},
		{MinRate: -2}, {MinRateGrace: -2},
	} {
		func() {
			defer func() {
				if v, _ := recover().(string); !strings.HasPrefix(v, "bodybuffer: ") {
					t.Errorf("New(%+v) panic = %q, want a bodybuffer: message", o, v)
				}
			}()
			New(o)
		}()
	}
}

func TestDefaults(t *testing.T) {
	b := New(Options{})
	want := limits{idle: DefaultIdleTimeout, rate: DefaultMinRate, grace: DefaultMinRateGrace}
	if b.maxBytes != DefaultMaxBytes || b.memBytes != DefaultMemBytes || b.lim != want || b.dir != os.TempDir() {
		t.Errorf("New(Options{}) = %d %d %+v %q, want the documented defaults", b.maxBytes, b.memBytes, b.lim, b.dir)
	}
	if b := New(Options{MaxBytes: 100}); b.memBytes != 100 {
		t.Errorf("MemBytes = %d, want capped at MaxBytes 100", b.memBytes)
	}
	b = New(Options{MaxBytes: -1, IdleTimeout: -1, Timeout: -1, MinRate: -1, MinRateGrace: -1})
	if b.maxBytes != -1 || b.lim != (limits{}) {
		t.Errorf("MaxBytes, limits = %d, %+v, want -1, none", b.maxBytes, b.lim)
	}
}

// The size histogram keeps its buckets, 1 KiB to 64 MiB by factors of 4,
// and counts per bucket: n in (Bounds[i-1], Bounds[i]], the last count
// above every bound.
func TestHistogram(t *testing.T) {
	b := New(Options{})
	sizes := []int64{0, 1024, 1025, 4096, 4097, 1 << 20, 1<<26 + 1, 1 << 40}
	var sum int64
	for _, n := range sizes {
		b.c.sizes.Observe(n)
		sum += n
	}
	h := b.Stats().Sizes
	wantBounds := []float64{1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26}
	if !slices.Equal(h.Bounds, wantBounds) {
		t.Errorf("Sizes.Bounds = %v, want %v", h.Bounds, wantBounds)
	}
	want := []uint64{2, 2, 1, 0, 0, 1, 0, 0, 0, 2}
	if !slices.Equal(h.Counts, want) {
		t.Errorf("Sizes.Counts = %v, want %v", h.Counts, want)
	}
	if h.Count != uint64(len(sizes)) || h.Sum != float64(sum) {
		t.Errorf("Sizes.Count, Sum = %d, %v, want %d, %v", h.Count, h.Sum, len(sizes), float64(sum))
	}
}

func TestBufPool(t *testing.T) {
	for _, tt := range []struct{ n, cap int64 }{{0, 1024}, {1, 1024}, {1024, 1024}, {1025, 2048}, {4 << 20, 4 << 20}, {4<<20 + 1, 4<<20 + 1}} {
		p := getBuf(tt.n)
		if int64(cap(*p)) != tt.cap || len(*p) != cap(*p) {
			t.Errorf("getBuf(%d) cap = %d len = %d, want %d", tt.n, cap(*p), len(*p), tt.cap)
		}
		putBuf(p)
	}
}
