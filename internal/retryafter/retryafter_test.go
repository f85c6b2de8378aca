package retryafter

import (
	"math"
	"testing"
	"time"
)

func TestSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want int64
	}{
		{math.MinInt64, 1},
		{-time.Second, 1},
		{0, 1},
		{time.Nanosecond, 1},
		{time.Second, 1},
		{time.Second + time.Nanosecond, 2},
		{1500 * time.Millisecond, 2},
		{30 * time.Second, 30},
		{24*time.Hour - time.Nanosecond, Max},
		{24 * time.Hour, Max},
		{24*time.Hour + time.Nanosecond, Max},
		{math.MaxInt64 - time.Second + 2, Max}, // would overflow d+1s-1
		{math.MaxInt64, Max},
	}
	for _, tt := range tests {
		if got := Seconds(tt.d); got != tt.want {
			t.Errorf("Seconds(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
	if got, want := Value(math.MaxInt64), "86400"; got != want {
		t.Errorf("Value(MaxInt64) = %q, want %q", got, want)
	}
}
