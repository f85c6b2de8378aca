package metrics

import (
	"slices"
	"testing"
)

func TestPerBucket(t *testing.T) {
	got := perBucket([]float64{1, 2, 4}, []uint64{3, 0, 2, 5}, 10, 42)
	want := Histogram{Bounds: []float64{1, 2, 4}, Counts: []uint64{3, 3, 5}, Count: 10, Sum: 42}
	if !slices.Equal(got.Bounds, want.Bounds) || !slices.Equal(got.Counts, want.Counts) ||
		got.Count != want.Count || got.Sum != want.Sum {
		t.Errorf("perBucket() = %+v, want %+v", got, want)
	}
}

func TestClassOf(t *testing.T) {
	for status, want := range map[int]string{
		0: "2xx", 100: "1xx", 101: "1xx", 200: "2xx", 299: "2xx", 304: "3xx",
		404: "4xx", 503: "5xx", 599: "5xx", 600: "other", 999: "other",
	} {
		if got := classNames[classOf(status)]; got != want {
			t.Errorf("classOf(%d) = %s, want %s", status, got, want)
		}
	}
}
