// Package testutil runs the agentry binary as separate processes for end-to-end tests.
package testutil

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// BuildBinary builds agentry from the module root into a temporary directory and returns the
// path and a cleanup function. Call it from TestMain.
func BuildBinary(moduleRoot string) (string, func(), error) {
	return build(moduleRoot, "agentry")
}

// RuntimeBuildTags build the runtime pods' agentry: serve and version only, for the config the
// operator renders (the agentry-runtime image; docs/runtime-footprint.md). grpcnotrace keeps
// gRPC (linked by the OTLP exporter's protobuf package) from linking golang.org/x/net/trace,
// whose html/template turns the linker's dead-code elimination off for the whole binary.
// The Makefile's RUNTIME_TAGS and the Dockerfile say the same.
const RuntimeBuildTags = "agentry_runtime,grpcnotrace"

// BuildRuntimeBinary builds agentry with RuntimeBuildTags, as the runtime image does.
func BuildRuntimeBinary(moduleRoot string) (string, func(), error) {
	return build(moduleRoot, "agentry-runtime", "-tags", RuntimeBuildTags)
}

func build(moduleRoot, name string, flags ...string) (string, func(), error) {
	dir, err := os.MkdirTemp("", "agentry-bin")
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, name)
	build := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, ".")...)
	build.Dir = moduleRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, fmt.Errorf("failed to build %s: %w", name, err)
	}
	return bin, func() { _ = os.RemoveAll(dir) }, nil
}

// Proc is a running process whose combined output is captured.
type Proc struct {
	Cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited and its output is read
	mu   sync.Mutex
	out  bytes.Buffer
}

// Output is everything the process printed so far.
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Check fails the test at once on an error.
func Check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// CleanEnv is the test's environment without OPENAI_* and AGENTRY_* variables.
func CleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OPENAI_") || strings.HasPrefix(kv, "AGENTRY_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Start runs bin with args in dir and env (added to CleanEnv), waits until a line of its output
// matches ready and returns the first group of that match. The process gets SIGINT at cleanup.
func Start(t *testing.T, bin, dir string, env []string, ready string, args ...string) (*Proc, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(CleanEnv(), env...)
	p, v, err := Launch(cmd, ready, 90*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p, v
}

// Launch starts cmd (Run) and waits up to within until a line of its output matches ready; it
// returns the first group of that match. A process that exits or does not get ready in time is
// stopped, and the error holds its output.
func Launch(cmd *exec.Cmd, ready string, within time.Duration, onLine func(line string)) (*Proc, string, error) {
	found := make(chan string, 1)
	re := regexp.MustCompile(ready)
	p, err := Run(cmd, func(line string) {
		if onLine != nil {
			onLine(line)
		}
		if m := re.FindStringSubmatch(line); m != nil {
			select {
			case found <- append(m, "")[1]:
			default:
			}
		}
	})
	if err != nil {
		return nil, "", err
	}
	select {
	case v := <-found:
		return p, v, nil
	case <-p.done:
	case <-time.After(within):
	}
	p.Stop()
	return nil, "", fmt.Errorf("%s %v did not get ready; output:\n%s", filepath.Base(cmd.Path), cmd.Args[1:], p.Output())
}

// Run starts cmd, capturing its output (stdout and stderr, Output); onLine, when set, sees
// every line of it.
func Run(cmd *exec.Cmd, onLine func(line string)) (*Proc, error) {
	p := &Proc{Cmd: cmd, done: make(chan struct{})}
	cmd.WaitDelay = cmp.Or(cmd.WaitDelay, 5*time.Second) // a child that keeps the output open does not hold Wait
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait(); _ = pw.Close() }()
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if onLine != nil {
				onLine(sc.Text())
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	return p, nil
}

// Exited is closed once the process has exited and its output is read.
func (p *Proc) Exited() <-chan struct{} { return p.done }

// Stop interrupts the process and waits until it has exited, killing it after 10 s.
func (p *Proc) Stop() {
	_ = p.Cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

// RunWithBinary is a TestMain body: it builds agentry from moduleRoot, stores the path in *bin,
// runs the tests and exits with their code.
func RunWithBinary(m *testing.M, moduleRoot string, bin *string) {
	RunWithBinaries(m, moduleRoot, bin, nil)
}

// RunWithBinaries is RunWithBinary that also builds the runtime build (BuildRuntimeBinary)
// into *runtimeBin when runtimeBin is not nil.
func RunWithBinaries(m *testing.M, moduleRoot string, bin, runtimeBin *string) {
	path, cleanup, err := BuildBinary(moduleRoot)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = path
	rtCleanup := func() {}
	if runtimeBin != nil {
		rt, c, err := BuildRuntimeBinary(moduleRoot)
		if err != nil {
			cleanup()
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		*runtimeBin, rtCleanup = rt, c
	}
	code := m.Run()
	cleanup()
	rtCleanup()
	os.Exit(code)
}
