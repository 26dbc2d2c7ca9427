package testutil

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	if got := Percentile(nil, 99); got != 0 {
		t.Fatalf("Percentile(nil) = %v, want 0", got)
	}
	lat := []time.Duration{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		p    int
		want time.Duration
	}{{0, 1}, {50, 5}, {90, 9}, {99, 10}, {100, 10}} {
		if got := Percentile(lat, c.p); got != c.want {
			t.Errorf("Percentile(p%d) = %v, want %v", c.p, got, c.want)
		}
	}
	if lat[0] != 5 {
		t.Fatal("Percentile reordered its input")
	}
	if NumCPU() < 1 {
		t.Fatal("NumCPU < 1")
	}
}
