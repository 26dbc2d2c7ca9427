package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// ---------------------------------------------------------------------------------------------
// Clean-up of everything started, also on SIGINT and on a failure inside testutil.

type cleanupStack struct {
	mu  sync.Mutex
	fns []func()
}

var cleanups cleanupStack

func (c *cleanupStack) add(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fns = append(c.fns, f)
}

// run calls the clean-ups in reverse order, once each.
func (c *cleanupStack) run() {
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

// benchTB lets testutil.StartPostgres run outside a test: failures panic with fatalError
// (recovered in run) and clean-ups join the stack above.
type benchTB struct{ testing.TB }

type fatalError struct{ msg string }

func (benchTB) Helper()                           {}
func (benchTB) Cleanup(f func())                  { cleanups.add(f) }
func (benchTB) Fatal(args ...any)                 { panic(fatalError{fmt.Sprint(args...)}) }
func (benchTB) Fatalf(format string, args ...any) { panic(fatalError{fmt.Sprintf(format, args...)}) }
func (benchTB) Logf(format string, args ...any)   { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// ---------------------------------------------------------------------------------------------
// The server process.

type server struct {
	cmd  *exec.Cmd
	base string // http://host:port/chat/v1
	done chan struct{}
}

func startChat(bin, dir, storage string) (*server, error) {
	// No per-user rate limit: the bench's few senders post 500 messages a second; no cap per
	// client address: every one of its 5,000 sockets comes from loopback.
	cmd := exec.Command(bin, "chat", "--addr", "127.0.0.1:0", "--storage", storage, "--media-dir", filepath.Join(dir, "media"), "--rate-limit=0", "--max-conns-per-ip=0")
	cmd.Env = append(testutil.CleanEnv(), "AGENTRY_CHAT_API_KEY="+apiKey)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	re := regexp.MustCompile(`msg="serving the chat service" addr=(\S+)`)
	found := make(chan string, 1)
	var tail bytes.Buffer
	var tailMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if m := re.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
			if strings.Contains(line, "level=ERROR") {
				serverErrors.Add(1)
			}
			if os.Getenv("BENCH_DEBUG") != "" || strings.Contains(line, "level=ERROR") && serverErrors.Load() <= 3 {
				fmt.Fprintln(os.Stderr, "  [chat]", line)
			}
			tailMu.Lock()
			if tail.Len() < 64<<10 {
				tail.WriteString(line + "\n")
			}
			tailMu.Unlock()
		}
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		close(s.done)
	}()
	cleanups.add(s.stop)
	select {
	case addr := <-found:
		s.base = "http://" + addr + "/chat/v1"
		return s, nil
	case <-s.done:
	case <-time.After(60 * time.Second):
	}
	s.stop()
	tailMu.Lock()
	defer tailMu.Unlock()
	return nil, fmt.Errorf("agentry chat --storage %s did not start:\n%s", storage, tail.String())
}

// stop sends SIGINT, waits up to 10 s, then kills.
func (s *server) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

func (s *server) rssKiB() float64 {
	cur, _, err := testutil.RSS(strconv.Itoa(s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	return cur * 1024
}
