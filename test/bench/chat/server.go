package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// ---------------------------------------------------------------------------------------------
// Clean-up of everything started, also on SIGINT and on a failure inside testutil.

var cleanups testutil.Cleanups

// benchTB lets testutil.StartPostgres run outside a test: failures panic with fatalError
// (recovered in run) and clean-ups join the stack above.
type benchTB struct{ testing.TB }

type fatalError struct{ msg string }

func (benchTB) Helper()                           {}
func (benchTB) Cleanup(f func())                  { cleanups.Add(f) }
func (benchTB) Fatal(args ...any)                 { panic(fatalError{fmt.Sprint(args...)}) }
func (benchTB) Fatalf(format string, args ...any) { panic(fatalError{fmt.Sprintf(format, args...)}) }
func (benchTB) Logf(format string, args ...any)   { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// ---------------------------------------------------------------------------------------------
// The server process.

type server struct {
	*testutil.Proc
	base string // http://host:port/chat/v1
}

func startChat(bin, dir, storage string) (*server, error) {
	// No per-user rate limit: the bench's few senders post 500 messages a second; no cap per
	// client address: every one of its 5,000 sockets comes from loopback.
	cmd := exec.Command(bin, "chat", "--addr", "127.0.0.1:0", "--storage", storage, "--media-dir", filepath.Join(dir, "media"), "--rate-limit=0", "--max-conns-per-ip=0")
	cmd.Env = append(testutil.CleanEnv(), "AGENTRY_CHAT_API_KEY="+apiKey)
	p, addr, err := testutil.Launch(cmd, `msg="serving the chat service" addr=(\S+)`, 60*time.Second, func(line string) {
		if strings.Contains(line, "level=ERROR") {
			serverErrors.Add(1)
		}
		if os.Getenv("BENCH_DEBUG") != "" || strings.Contains(line, "level=ERROR") && serverErrors.Load() <= 3 {
			fmt.Fprintln(os.Stderr, "  [chat]", line)
		}
	})
	if err != nil {
		return nil, err
	}
	cleanups.Add(p.Stop)
	return &server{p, "http://" + addr + "/chat/v1"}, nil
}

func (s *server) rssKiB() float64 {
	cur, _, err := testutil.RSS(strconv.Itoa(s.Cmd.Process.Pid))
	if err != nil {
		return 0
	}
	return cur * 1024
}
