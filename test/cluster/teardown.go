package cluster

// Teardown: Stop removes what Start made (processes, shims, mounts, cgroups, iptables chains,
// links), and Leftovers says what of a cluster is still on the machine.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Stop stops and removes everything Start made, whatever state it is in, and reports what it
// could not remove.
func (c *Cluster) Stop() error {
	var errs []error
	c.stopOnce.Do(func() {
		errs = c.teardown()
	})
	return errors.Join(errs...)
}

func (c *Cluster) teardown() []error {
	var errs []error
	note := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
	}
	bg := context.Background()
	// The node first, so nothing restarts what is removed below; the control plane last.
	order := map[string]int{"kubelet": 0, "kube-proxy": 1, "containerd": 3, "kube-scheduler": 4, "kube-controller-manager": 4, "kube-apiserver": 5, "etcd": 6}
	c.mu.Lock()
	procs := append([]*proc(nil), c.procs...)
	c.mu.Unlock()
	sort.SliceStable(procs, func(i, j int) bool { return order[procs[i].name] < order[procs[j].name] })
	for _, p := range procs {
		if p.name == "containerd" {
			note("stop the pods' containers", c.killContainers(bg))
		}
		note("stop "+p.name, stopProc(p))
		if p.name == "kube-proxy" {
			if _, err := run(bg, filepath.Join(c.o.Node, "kube-proxy"), "--cleanup"); err != nil {
				note("kube-proxy --cleanup", err)
			}
		}
	}
	if len(procs) == 0 || !hasProc(procs, "containerd") {
		note("stop the pods' containers", c.killContainers(bg))
	}
	note("stop the container shims", c.killShims())
	note("unmount", c.unmountAll())
	note("remove the pods' network namespaces", c.removePodNetns(bg))
	note("remove the pods' cgroups", removeCgroups("kubepods"))
	note("remove the CNI chains", removeChains(bg, "CNI-"))
	note("remove kubelet's KUBE- chains", removeChains(bg, "KUBE-"))
	note("remove the pods' log links", c.removeLogLinks())
	for i := len(c.undo) - 1; i >= 0; i-- {
		note("undo", c.undo[i]())
	}
	for p, v := range c.sysctls {
		note("restore "+p, os.WriteFile(p, []byte(v), 0o644))
	}
	return errs
}

func hasProc(ps []*proc, name string) bool {
	for _, p := range ps {
		if p.name == name {
			return true
		}
	}
	return false
}

// stopProc sends SIGTERM to the component's process group, then SIGKILL after 10 s.
func stopProc(p *proc) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit", p.name, p.cmd.Process.Pid)
	}
}

// killShims kills containerd's runc shims (and their containers' processes) started for this
// cluster: their command line names this cluster's containerd socket.
func (c *Cluster) killShims() error {
	sock := c.path("containerd", "containerd.sock")
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	var killed []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !strings.Contains(string(cmdline), "containerd-shim") || !strings.Contains(string(cmdline), sock) {
			continue
		}
		// The shim leads its own group with the container's processes.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		killed = append(killed, pid)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range killed {
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// unmountAll lazily unmounts every mount under the cluster's directory (secret tmpfs volumes,
// container root filesystems, sandbox shm), deepest first.
func (c *Cluster) unmountAll() error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := strings.ReplaceAll(fields[4], `\040`, " ")
		if mp == c.Dir || strings.HasPrefix(mp, c.Dir+"/") || strings.HasPrefix(mp, "/run/containerd/io.containerd.grpc.v1.cri/") && strings.Contains(mp, "agentry") {
			points = append(points, mp)
		}
	}
	sort.Slice(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	var errs []error
	for _, mp := range points {
		if err := syscall.Unmount(mp, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", mp, err))
		}
	}
	return errors.Join(errs...)
}

// removeCgroups removes the named cgroup tree from every cgroup v1 hierarchy (and the v2 one),
// deepest first; a cgroup still holding a process stays and is reported.
func removeCgroups(name string) error {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*")
	roots = append(roots, "/sys/fs/cgroup")
	var errs []error
	for _, root := range roots {
		top := filepath.Join(root, name)
		if _, err := os.Stat(top); err != nil {
			continue
		}
		var dirs []string
		_ = filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
		for _, d := range dirs {
			var err error
			for try := 0; try < 50; try++ {
				if err = syscall.Rmdir(d); err == nil || errors.Is(err, syscall.ENOENT) {
					err = nil
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("rmdir %s: %w", d, err))
			}
		}
	}
	return errors.Join(errs...)
}

// removeChains flushes and deletes the iptables chains whose names start with prefix, in the
// filter, nat and mangle tables, after removing the jumps to them.
func removeChains(ctx context.Context, prefix string) error {
	var errs []error
	for _, table := range []string{"filter", "nat", "mangle"} {
		out, err := run(ctx, "iptables", "-w", "-t", table, "-S")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var chains []string
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "-N" && strings.HasPrefix(f[1], prefix) {
				chains = append(chains, f[1])
			}
			// A jump to one of them from a built-in chain: delete that rule.
			if len(f) >= 2 && f[0] == "-A" && !strings.HasPrefix(f[1], prefix) && strings.Contains(line, "-j "+prefix) {
				args := append([]string{"-w", "-t", table, "-D"}, f[1:]...)
				if _, err := run(ctx, "iptables", args...); err != nil {
					errs = append(errs, err)
				}
			}
		}
		for _, ch := range chains {
			_, _ = run(ctx, "iptables", "-w", "-t", table, "-F", ch)
		}
		for _, ch := range chains {
			if _, err := run(ctx, "iptables", "-w", "-t", table, "-X", ch); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// removeLogLinks removes kubelet's /var/log/containers links into this cluster's pod logs.
func (c *Cluster) removeLogLinks() error {
	links, _ := filepath.Glob("/var/log/containers/*.log")
	for _, l := range links {
		if target, err := os.Readlink(l); err == nil && strings.HasPrefix(target, c.Dir) {
			_ = os.Remove(l)
		}
	}
	return nil
}

// Leftovers says what of a cluster is still on the machine ("" when nothing): processes,
// links, iptables chains, kubepods cgroups, mounts. Tests call it after Stop.
func Leftovers() string {
	var found []string
	for _, name := range []string{"kubelet", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy", "containerd", "etcd", "containerd-shim-runc-v2", "coredns"} {
		if out, err := exec.Command("pgrep", "-x", name).Output(); err == nil && len(strings.TrimSpace(string(out))) > 0 {
			found = append(found, "process "+name)
		}
	}
	for _, l := range []string{bridge} {
		if _, err := net.InterfaceByName(l); err == nil {
			found = append(found, "link "+l)
		}
	}
	for _, table := range []string{"filter", "nat", "mangle"} {
		out, _ := exec.Command("iptables", "-w", "-t", table, "-S").Output()
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "-N" && (strings.HasPrefix(f[1], "KUBE-") || strings.HasPrefix(f[1], "CNI-") || f[1] == fwdChain) {
				found = append(found, "iptables "+table+" "+f[1])
			}
		}
	}
	if dirs, _ := filepath.Glob("/sys/fs/cgroup/*/kubepods"); len(dirs) > 0 {
		found = append(found, "cgroups "+strings.Join(dirs, " "))
	}
	if ns := podNetns(); len(ns) > 0 {
		found = append(found, fmt.Sprintf("%d pod network namespaces (/var/run/netns/cni-*)", len(ns)))
	}
	if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil && strings.Contains(string(b), "agentry-cluster-") {
		found = append(found, "mounts under an agentry-cluster- directory")
	}
	return strings.Join(found, "; ")
}
