// Package memlimit gives the Go runtime a soft memory limit derived from the container's memory
// limit, so that a runtime pod collects garbage harder as it nears its limit instead of being
// OOM-killed (see docs/runtime-footprint.md).
package memlimit

import (
	"runtime/debug"
	"strconv"
	"strings"
)

// Env carries the container's memory limit in bytes. The operator sets it from the downward API
// (resourceFieldRef limits.memory); without a limit the kubelet passes the node's allocatable
// memory, which leaves the soft limit far away.
const Env = "AGENTRY_MEMORY_LIMIT"

// Percent of the container limit that becomes GOMEMLIMIT. The rest is headroom for what the Go
// runtime does not count: the binary's mapped pages and the kernel's share of the cgroup.
const Percent = 90

// Apply sets the soft limit to Percent of Env's value and returns it; 0 when nothing was set:
// Env is unset or not a positive number of bytes, or GOMEMLIMIT is set (the Go runtime has
// applied that one itself, and an explicit setting wins).
func Apply(getenv func(string) string) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(getenv(Env)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	limit := n / 100 * Percent
	debug.SetMemoryLimit(limit)
	return limit
}
