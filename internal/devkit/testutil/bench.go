package testutil

import (
	"os"
	"sort"
	"strings"
	"time"
)

// Percentile is the p-th percentile (nearest rank) of lat, 0 for none; lat is not reordered.
func Percentile(lat []time.Duration, p int) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), lat...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	idx := (len(s)*p + 99) / 100
	if idx > 0 {
		idx--
	}
	return s[min(idx, len(s)-1)]
}

// NumCPU counts the processors listed in /proc/cpuinfo (at least 1).
func NumCPU() int {
	data, _ := os.ReadFile("/proc/cpuinfo")
	return max(1, strings.Count(string(data), "processor\t:"))
}
