// Package cluster runs a real one-node Kubernetes cluster from local processes for the tests
// and the benchmark: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd
// with runc, kubelet, kube-proxy (iptables) and CoreDNS as a pod, all on this machine. Nothing
// is pulled: images come from docker-archive tarballs imported into containerd. The network
// stays on the machine: the node address, the pod and the Service ranges are in 198.18.0.0/15
// (reserved for network testing), pods have no route out (a FORWARD rule drops what would
// leave), and CoreDNS answers cluster.local only. Stop removes every process, mount, cgroup,
// iptables chain, link and file Start made, on failure too.
//
// ../shared/notes/real-cluster.md (read-only, outside the repository) has the facts this
// kernel needs; docs/cluster-tests.md the decisions.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// Addresses of the cluster. One cluster per machine at a time: the ports, iptables chains,
// links and the kubepods cgroups are host-wide.
const (
	NodeName = "agentry-node"
	// The node's address is the pods' gateway on their bridge: the CNI bridge plugin adopts a
	// bridge that already holds its gateway address (and refuses one holding another).
	NodeIP      = "198.18.0.1"
	PodCIDR     = "198.18.0.0/24"
	PodGateway  = NodeIP
	ServiceCIDR = "198.19.0.0/24"
	APIService  = "198.19.0.1"
	DNSService  = "198.19.0.10"
	TestRange   = "198.18.0.0/15"
	bridge      = "agentry-br0"
	fwdChain    = "AGENTRY-FORWARD"
	apiPort     = 6443
	// Images the node needs, built by the harness.
	PauseImage   = "agentry.test/pause:1"
	CoreDNSImage = "agentry.test/coredns:1"
)

// Options say where the binaries are.
type Options struct {
	// Assets holds kube-apiserver and etcd (KUBEBUILDER_ASSETS, hack/setup-envtest.sh).
	Assets string
	// Node holds kubelet, kube-controller-manager, kube-scheduler, kube-proxy and coredns
	// (hack/setup-cluster.sh).
	Node string
	// Images are docker-archive tarballs to import into containerd.
	Images []string
	// Dir is the cluster's data directory (default: a new temporary directory, removed by Stop).
	Dir string
	// Log receives the steps; the components' output goes to files under Dir/logs.
	Log io.Writer
}

// Cluster is a running cluster.
type Cluster struct {
	o          Options
	Dir        string
	Kubeconfig string // the admin's (system:masters)
	Server     string

	mu          sync.Mutex
	procs       []*proc
	undo        []func() error // cleanups, run last first
	sysctls     map[string]string
	netnsBefore map[string]bool // the pod network namespaces that were there before this cluster
	stopOnce    sync.Once
	etcdURL     string
	// What the chat step made, for the steps after it.
	chatKey, chatToken string
}

type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func (c *Cluster) logf(format string, a ...any) {
	if c.o.Log != nil {
		fmt.Fprintf(c.o.Log, "[%s] cluster: %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, a...))
	}
}

// Start brings the cluster up and returns once the node is Ready and CoreDNS answers. On an
// error everything started so far is already stopped and removed.
func Start(ctx context.Context, o Options) (c *Cluster, err error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("a cluster needs root (containerd, kubelet, iptables, links)")
	}
	dir := o.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "agentry-cluster-"); err != nil {
			return nil, err
		}
	}
	c = &Cluster{o: o, Dir: dir, sysctls: map[string]string{}, netnsBefore: map[string]bool{}}
	for _, n := range podNetns() {
		c.netnsBefore[n] = true
	}
	c.undo = append(c.undo, func() error { return os.RemoveAll(dir) })
	defer func() {
		if err != nil {
			if o.Log != nil {
				c.DumpLogs(o.Log, 20)
			}
			if serr := c.Stop(); serr != nil {
				c.logf("cleanup after a failed start: %v", serr)
			}

		}
	}()
	for _, d := range []string{"logs", "pki", "etcd", "containerd", "cni/net.d", "cni/ipam", "kubelet", "pod-logs", "pv"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return c, err
		}
	}
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"network", c.network},
		{"certificates", c.certificates},
		{"etcd", c.etcd},
		{"kube-apiserver", c.apiserver},
		{"controllers and scheduler", c.controlPlane},
		{"containerd", c.containerd},
		{"images", c.images},
		{"kubelet", c.kubelet},
		{"kube-proxy", c.kubeProxy},
		{"node Ready", c.nodeReady},
		{"CoreDNS", c.coreDNS},
	}
	for _, s := range steps {
		start := time.Now()
		if err := s.fn(ctx); err != nil {
			return c, fmt.Errorf("failed to start the cluster's %s: %w", s.name, err)
		}
		c.logf("%s: %s", s.name, time.Since(start).Round(time.Millisecond))
	}
	return c, nil
}

func (c *Cluster) path(p ...string) string { return filepath.Join(append([]string{c.Dir}, p...)...) }

// run runs a command to completion, with its output in the error.
func run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// start starts a long-running component with its output in logs/<name>.log.
func (c *Cluster) start(name, bin string, args ...string) (*proc, error) {
	f, err := os.Create(c.path("logs", name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	// Its own process group: a signal to the test does not reach it, Stop does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("failed to start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	return p, nil
}

// waitHTTP polls url until it answers 200 (TLS unverified: a health endpoint) or the component
// exits.
func waitHTTP(ctx context.Context, p *proc, url string, timeout time.Duration) error {
	client := insecureClient(2 * time.Second)
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited: %v", p.name, p.err)
		default:
		}
		if res, err := client.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer %s within %s", p.name, url, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// sysctl sets a kernel setting and restores its value at Stop.
func (c *Cluster) sysctl(key, value string) error {
	p := "/proc/sys/" + strings.ReplaceAll(key, ".", "/")
	old, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(old)) == value {
		return nil
	}
	if _, seen := c.sysctls[p]; !seen {
		c.sysctls[p] = strings.TrimSpace(string(old))
	}
	return os.WriteFile(p, []byte(value), 0o644)
}

// network gives the node its address on the pods' bridge (made here, before the CNI plugin
// adopts it: this kernel has no dummy links; the address is the pods' gateway), lets bridged pod traffic through iptables
// (kube-proxy's Services) and drops whatever a pod would send off the test range.
func (c *Cluster) network(ctx context.Context) error {
	if _, err := os.Stat("/proc/sys/net/bridge/bridge-nf-call-iptables"); err != nil {
		if _, err := run(ctx, "modprobe", "br_netfilter"); err != nil {
			return fmt.Errorf("br_netfilter is neither built in nor loadable: %w", err)
		}
	}
	if _, err := run(ctx, "ip", "link", "add", bridge, "type", "bridge"); err != nil {
		return err
	}
	c.undo = append(c.undo, func() error {
		if _, err := net.InterfaceByName(bridge); err != nil {
			return nil
		}
		_, err := run(context.Background(), "ip", "link", "del", bridge)
		return err
	})
	if _, err := run(ctx, "ip", "addr", "add", PodGateway+"/24", "dev", bridge); err != nil {
		return err
	}
	if _, err := run(ctx, "ip", "link", "set", bridge, "up"); err != nil {
		return err
	}
	if _, err := run(ctx, "iptables", "-w", "-N", fwdChain); err != nil {
		return err
	}
	c.undo = append(c.undo, func() error {
		bg := context.Background()
		_, _ = run(bg, "iptables", "-w", "-D", "FORWARD", "-j", fwdChain)
		_, _ = run(bg, "iptables", "-w", "-F", fwdChain)
		_, err := run(bg, "iptables", "-w", "-X", fwdChain)
		return err
	})
	for _, rule := range [][]string{
		{"-A", fwdChain, "-s", TestRange, "!", "-d", TestRange, "-j", "DROP"},
		{"-A", fwdChain, "-d", TestRange, "!", "-s", TestRange, "-j", "DROP"},
		{"-I", "FORWARD", "1", "-j", fwdChain},
	} {
		if _, err := run(ctx, "iptables", append([]string{"-w"}, rule...)...); err != nil {
			return err
		}
	}
	for k, v := range map[string]string{"net.ipv4.ip_forward": "1", "net.bridge.bridge-nf-call-iptables": "1"} {
		if err := c.sysctl(k, v); err != nil {
			return fmt.Errorf("failed to set %s: %w", k, err)
		}
	}
	return nil
}

func (c *Cluster) certificates(context.Context) error {
	p, err := newPKI(c.path("pki"))
	if err != nil {
		return err
	}
	if err := p.serviceAccountKey(); err != nil {
		return err
	}
	if err := p.issue("apiserver", "kube-apiserver", nil,
		[]net.IP{net.ParseIP(NodeIP), net.ParseIP(APIService), net.ParseIP("127.0.0.1")},
		[]string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "localhost"}); err != nil {
		return err
	}
	if err := p.issue("admin", "agentry-test-admin", []string{"system:masters"}, nil, nil); err != nil {
		return err
	}
	if err := p.issue("node", "system:node:"+NodeName, []string{"system:nodes"}, nil, nil); err != nil {
		return err
	}
	if err := p.issue("kubelet", NodeName, nil, []net.IP{net.ParseIP(NodeIP)}, []string{NodeName}); err != nil {
		return err
	}
	c.Server = fmt.Sprintf("https://%s:%d", NodeIP, apiPort)
	c.Kubeconfig = c.path("admin.kubeconfig")
	if err := p.kubeconfig(c.Kubeconfig, c.Server, "admin"); err != nil {
		return err
	}
	return p.kubeconfig(c.path("node.kubeconfig"), c.Server, "node")
}

func (c *Cluster) etcd(ctx context.Context) error {
	client, err := testutil.FreePort()
	if err != nil {
		return err
	}
	peer, err := testutil.FreePort()
	if err != nil {
		return err
	}
	c.etcdURL = fmt.Sprintf("http://127.0.0.1:%d", client)
	p, err := c.start("etcd", filepath.Join(c.o.Assets, "etcd"), "--data-dir", c.path("etcd"),
		"--listen-client-urls", c.etcdURL, "--advertise-client-urls", c.etcdURL,
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer), "--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer),
		"--initial-cluster", fmt.Sprintf("default=http://127.0.0.1:%d", peer), "--unsafe-no-fsync")
	if err != nil {
		return err
	}
	return waitHTTP(ctx, p, c.etcdURL+"/health", 30*time.Second)
}

func (c *Cluster) apiserver(ctx context.Context) error {
	pk := c.path("pki")
	p, err := c.start("kube-apiserver", filepath.Join(c.o.Assets, "kube-apiserver"),
		"--etcd-servers", c.etcdURL,
		"--bind-address", NodeIP, "--advertise-address", NodeIP, "--secure-port", fmt.Sprint(apiPort),
		"--service-cluster-ip-range", ServiceCIDR,
		"--tls-cert-file", filepath.Join(pk, "apiserver.crt"), "--tls-private-key-file", filepath.Join(pk, "apiserver.key"),
		"--client-ca-file", filepath.Join(pk, "ca.crt"),
		"--kubelet-client-certificate", filepath.Join(pk, "admin.crt"), "--kubelet-client-key", filepath.Join(pk, "admin.key"),
		"--kubelet-certificate-authority", filepath.Join(pk, "ca.crt"),
		"--kubelet-preferred-address-types", "InternalIP",
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", filepath.Join(pk, "sa.pub"), "--service-account-signing-key-file", filepath.Join(pk, "sa.key"),
		"--authorization-mode", "Node,RBAC", "--enable-admission-plugins", "NodeRestriction",
		"--allow-privileged=false", "--profiling=false")
	if err != nil {
		return err
	}
	return waitHTTP(ctx, p, c.Server+"/readyz", 90*time.Second)
}

func (c *Cluster) controlPlane(ctx context.Context) error {
	pk := c.path("pki")
	kcm, err := c.start("kube-controller-manager", filepath.Join(c.o.Node, "kube-controller-manager"),
		"--kubeconfig", c.Kubeconfig, "--authentication-kubeconfig", c.Kubeconfig, "--authorization-kubeconfig", c.Kubeconfig,
		"--service-account-private-key-file", filepath.Join(pk, "sa.key"), "--root-ca-file", filepath.Join(pk, "ca.crt"),
		"--use-service-account-credentials", "--leader-elect=false", "--bind-address", "127.0.0.1", "--secure-port", "0",
		"--service-cluster-ip-range", ServiceCIDR, "--profiling=false")
	if err != nil {
		return err
	}
	if _, err := c.start("kube-scheduler", filepath.Join(c.o.Node, "kube-scheduler"),
		"--kubeconfig", c.Kubeconfig, "--authentication-kubeconfig", c.Kubeconfig, "--authorization-kubeconfig", c.Kubeconfig,
		"--leader-elect=false", "--bind-address", "127.0.0.1", "--secure-port", "0", "--profiling=false"); err != nil {
		return err
	}
	// Both have their health port off (no fixed ports on the machine); the node's readiness
	// and the first pods show they work. A crash at start shows here.
	select {
	case <-kcm.done:
		return fmt.Errorf("kube-controller-manager exited: %v", kcm.err)
	case <-time.After(time.Second):
	}
	return nil
}

// DumpLogs writes the last lines of each component's log (for a failed run: Stop removes them).
func (c *Cluster) DumpLogs(w io.Writer, lines int) {
	logs, _ := filepath.Glob(c.path("logs", "*.log"))
	pods, _ := filepath.Glob(c.path("pod-logs", "*", "*", "*.log"))
	logs = append(logs, pods...)
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		all := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(all) > lines {
			all = all[len(all)-lines:]
		}
		fmt.Fprintf(w, "--- %s (last %d lines)\n%s\n", filepath.Base(l), len(all), strings.Join(all, "\n"))
	}
}

// podNetns lists the pods' network namespaces the CNI plugins created (/var/run/netns/cni-*).
func podNetns() []string {
	paths, _ := filepath.Glob("/var/run/netns/cni-*")
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

// removePodNetns deletes the network namespaces of this cluster's pods: pods killed with their
// containers never get the CNI's DEL, so their namespaces (a bind mount each) and the host side
// of their veth pairs would stay. Deleting a namespace removes both.
func (c *Cluster) removePodNetns(ctx context.Context) error {
	var errs []error
	for _, n := range podNetns() {
		if c.netnsBefore[n] {
			continue
		}
		if _, err := run(ctx, "ip", "netns", "delete", n); err != nil {
			errs = append(errs, fmt.Errorf("ip netns delete %s: %w", n, err))
		}
	}
	return errors.Join(errs...)
}
