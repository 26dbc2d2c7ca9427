package cmd

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// stopWithParent asks the kernel to send this process SIGTERM when its parent dies, so make
// dev (whose recipe execs agentry dev) stopped by its pid stops the server too, instead of
// leaving it listening. Only when AGENTRY_STOP_WITH_PARENT is set.
func stopWithParent() {
	if os.Getenv("AGENTRY_STOP_WITH_PARENT") == "" {
		return
	}
	parent := os.Getppid()
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0)
	// The parent may have died before the request: then this process was re-parented already.
	if os.Getppid() != parent {
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
}
