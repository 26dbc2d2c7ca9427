package process

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestDevStopsWithItsParent: make dev execs agentry dev with AGENTRY_STOP_WITH_PARENT; when its
// parent (make) is stopped by its pid, agentry dev stops too, and nothing listens any more.
// A shell stands in for make.
func TestDevStopsWithItsParent(t *testing.T) {
	dir := t.TempDir()
	// "; :" keeps the shell as the parent (it would exec a last command).
	samples, err := filepath.Abs("../../config/samples")
	testutil.Check(t, err)
	sh := exec.Command("sh", "-c", `"$0" dev --addr 127.0.0.1:0 --dir "$1" ; :`, binary, samples)
	sh.Dir = dir
	sh.Env = append(os.Environ(), "AGENTRY_STOP_WITH_PARENT=1", "OPENAI_API_KEY=")
	out, err := sh.StdoutPipe()
	testutil.Check(t, err)
	sh.Stderr = sh.Stdout
	testutil.Check(t, sh.Start())
	t.Cleanup(func() { _ = sh.Process.Kill(); _ = sh.Wait() })

	banner := regexp.MustCompile(`Agentry dev server: http://(\S+)/api/agents`)
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := banner.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var listen string
	select {
	case listen = <-addr:
	case <-time.After(60 * time.Second):
		t.Fatal("agentry dev did not start")
	}
	children, err := os.ReadFile("/proc/" + strconv.Itoa(sh.Process.Pid) + "/task/" + strconv.Itoa(sh.Process.Pid) + "/children")
	testutil.Check(t, err)
	fields := strings.Fields(string(children))
	if len(fields) != 1 {
		t.Fatalf("the shell's children: %q", children)
	}
	child, _ := strconv.Atoi(fields[0])
	t.Cleanup(func() {
		if alive(child) {
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	})

	testutil.Check(t, sh.Process.Signal(syscall.SIGTERM))
	_ = sh.Wait()
	// A thread group's leader shows as a zombie while its other threads still exit with the
	// files open, so the listener's end is waited for too.
	testutil.Eventually(t, "agentry dev to stop with its parent", 30*time.Second, 50*time.Millisecond, func() error {
		if alive(child) {
			return fmt.Errorf("process %d is still running", child)
		}
		if c, err := net.DialTimeout("tcp", listen, time.Second); err == nil {
			_ = c.Close()
			return fmt.Errorf("something still listens on %s", listen)
		}
		return nil
	})
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
