package testutil

import (
	"cmp"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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

// Cleanups is a benchmark command's stack of clean-ups, run also when it is interrupted.
type Cleanups struct {
	mu  sync.Mutex
	fns []func()
}

// Add pushes f.
func (c *Cleanups) Add(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fns = append(c.fns, f)
}

// Run calls the clean-ups in reverse order, once each.
func (c *Cleanups) Run() {
	for {
		c.mu.Lock()
		if len(c.fns) == 0 {
			c.mu.Unlock()
			return
		}
		f := c.fns[len(c.fns)-1]
		c.fns = c.fns[:len(c.fns)-1]
		c.mu.Unlock()
		f()
	}
}

// BenchMain ends a benchmark command's main: it runs run, then the clean-ups, and exits 1 when
// run failed; SIGINT or SIGTERM meanwhile runs the clean-ups and exits 130.
func BenchMain(cleanups *Cleanups, run func() error) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		fmt.Fprintln(os.Stderr, "bench: interrupted, cleaning up")
		cleanups.Run()
		os.Exit(130)
	}()
	err := run()
	cleanups.Run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// Progress tells the benchmark's progress on stderr, with the time.
func Progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "["+time.Now().Format("15:04:05")+"] "+format+"\n", args...)
}

// Parallel calls f(0)…f(n-1) from workers goroutines and returns the first error; a worker
// stops at its first error.
func Parallel(n, workers int, f func(i int) error) error {
	var next atomic.Int64
	var first error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// FreePort asks the kernel for a free loopback port.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
