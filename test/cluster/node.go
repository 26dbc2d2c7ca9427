package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// containerdConfig is containerd 1.6's configuration for this kernel: cgroupfs (cgroups are
// v1), runc (crun refuses hybrid cgroups), restrict_oom_score_adj (a negative oom_score_adj is
// refused here), a local sandbox image, and every path under the cluster's directory.
const containerdConfig = `version = 2
root = %[1]q
state = %[2]q
[grpc]
  address = %[3]q
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[4]q
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %[5]q
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = %[6]q
`

// cniConfig puts pods on a bridge with the gateway on the host, no masquerade (nothing may
// leave), hairpin mode (a pod reaching itself through its Service).
const cniConfig = `{
  "cniVersion": "0.4.0",
  "name": "agentry",
  "plugins": [
    {"type": "bridge", "bridge": %q, "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": %q, "gateway": %q}]], "routes": [{"dst": "0.0.0.0/0"}], "dataDir": %q}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`

func (c *Cluster) containerdSocket() string { return c.path("containerd", "containerd.sock") }

func (c *Cluster) containerd(ctx context.Context) error {
	cfg := c.path("containerd", "config.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(containerdConfig, c.path("containerd", "root"), c.path("containerd", "state"),
		c.containerdSocket(), PauseImage, c.path("cni", "net.d"), c.path("containerd", "certs.d"))), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(c.path("cni", "net.d", "10-agentry.conflist"), []byte(fmt.Sprintf(cniConfig, bridge, PodCIDR, PodGateway, c.path("cni", "ipam"))), 0o644); err != nil {
		return err
	}
	p, err := c.start("containerd", "containerd", "--config", cfg)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := c.ctr(ctx, "version"); err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("containerd exited: %v", p.err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("containerd did not answer within 30 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ctr runs containerd's CLI against this cluster's containerd, in the CRI's namespace.
func (c *Cluster) ctr(ctx context.Context, args ...string) (string, error) {
	return run(ctx, "ctr", append([]string{"--address", c.containerdSocket(), "--namespace", "k8s.io"}, args...)...)
}

// images imports the node's images and the test's.
func (c *Cluster) images(ctx context.Context) error {
	node, err := nodeImages(c.path("node-images.tar"), c.o.Node)
	if err != nil {
		return err
	}
	for _, tar := range append([]string{node}, c.o.Images...) {
		if _, err := c.ctr(ctx, "images", "import", tar); err != nil {
			return err
		}
	}
	return nil
}

// killContainers stops every container and sandbox this cluster's containerd runs.
func (c *Cluster) killContainers(ctx context.Context) error {
	if _, err := os.Stat(c.containerdSocket()); err != nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := c.ctr(cctx, "tasks", "ls", "-q")
	if err != nil {
		return nil // containerd is gone: the shims are killed next
	}
	for _, id := range strings.Fields(out) {
		_, _ = c.ctr(cctx, "tasks", "kill", "-s", "SIGKILL", id)
	}
	for _, id := range strings.Fields(out) {
		for try := 0; try < 20; try++ {
			if _, err := c.ctr(cctx, "tasks", "delete", id); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// kubeletConfig is the node's KubeletConfiguration: cgroupfs on cgroup v1 (and told not to
// refuse it), no swap check, oomScoreAdj 0 (negative values are refused here), its ports on the
// node address only, webhook authentication and authorisation, and every path of its own.
const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %[1]s
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[2]q}
authorization: {mode: Webhook}
tlsCertFile: %[3]q
tlsPrivateKeyFile: %[4]q
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
oomScoreAdj: 0
clusterDNS: [%[5]s]
clusterDomain: cluster.local
containerRuntimeEndpoint: unix://%[6]s
resolvConf: %[7]q
podLogsDir: %[8]q
volumePluginDir: %[9]q
staticPodPath: ""
serializeImagePulls: false
imageGCHighThresholdPercent: 100
evictionHard: {memory.available: "100Mi", nodefs.available: "1%%", imagefs.available: "1%%", nodefs.inodesFree: "1%%"}
maxPods: 60
`

func (c *Cluster) kubelet(ctx context.Context) error {
	pk := c.path("pki")
	// Pods whose DNS policy is Default get this file: no upstream (nothing may leave).
	if err := os.WriteFile(c.path("resolv.conf"), []byte("# no upstream resolver in the test cluster\n"), 0o644); err != nil {
		return err
	}
	cfg := c.path("kubelet", "config.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(kubeletConfig, NodeIP, filepath.Join(pk, "ca.crt"), filepath.Join(pk, "kubelet.crt"),
		filepath.Join(pk, "kubelet.key"), DNSService, c.containerdSocket(), c.path("resolv.conf"), c.path("pod-logs"),
		c.path("kubelet", "volume-plugins"))), 0o644); err != nil {
		return err
	}
	_, err := c.start("kubelet", filepath.Join(c.o.Node, "kubelet"), "--config", cfg, "--kubeconfig", c.path("node.kubeconfig"),
		"--root-dir", c.path("kubelet"), "--hostname-override", NodeName, "--node-ip", NodeIP, "--cert-dir", c.path("kubelet", "pki"))
	return err
}

func (c *Cluster) kubeProxy(ctx context.Context) error {
	_, err := c.start("kube-proxy", filepath.Join(c.o.Node, "kube-proxy"), "--kubeconfig", c.Kubeconfig,
		"--hostname-override", NodeName, "--cluster-cidr", PodCIDR, "--proxy-mode", "iptables",
		"--nodeport-addresses", NodeIP+"/32", "--metrics-bind-address", "127.0.0.1:10249", "--healthz-bind-address", "127.0.0.1:10256",
		"--conntrack-max-per-core", "0")
	return err
}

// nodeReady waits for the node to register and be Ready.
func (c *Cluster) nodeReady(ctx context.Context) error {
	return c.Wait(ctx, 90*time.Second, "node "+NodeName+" Ready", func() (bool, error) {
		out, err := c.Kubectl(ctx, "get", "node", NodeName, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && strings.TrimSpace(out) == "True", nil
	})
}

// Kubectl runs kubectl as the cluster's admin.
func (c *Cluster) Kubectl(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// Wait polls cond every 250 ms until it holds, it fails, or timeout passes.
func (c *Cluster) Wait(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not within %s", what, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func insecureClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // health endpoints of our own processes
}
