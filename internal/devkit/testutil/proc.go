// Package testutil runs the agentry binary as separate processes for end-to-end tests.
package testutil

import (
	"bufio"
	"bytes"
	"context"
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
	Cmd *exec.Cmd
	mu  sync.Mutex
	out bytes.Buffer
}

// Output is everything the process printed so far.
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
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
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(CleanEnv(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	p := &Proc{Cmd: cmd}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	re := regexp.MustCompile(ready)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.out.WriteString(line + "\n")
			p.mu.Unlock()
			if m := re.FindStringSubmatch(line); m != nil && !sent {
				sent = true
				v := ""
				if len(m) > 1 {
					v = m[1]
				}
				found <- v
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		_ = pw.Close()
	})
	select {
	case v := <-found:
		return p, v
	case <-time.After(90 * time.Second):
		t.Fatalf("%s %v did not get ready; output:\n%s", filepath.Base(bin), args, p.Output())
	}
	return nil, ""
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
