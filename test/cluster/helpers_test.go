package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// repo is the repository root: the README's commands run from there.
const repo = "../.."

// sh runs a shell command line from the repository root as the cluster's admin, as a user types
// it (the README's commands verbatim).
func (c *Cluster) sh(t *testing.T, line string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-ec", line)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return string(out)
}

// kubectl runs kubectl and fails the test on an error.
func (c *Cluster) kubectl(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := c.Kubectl(ctx, args...)
	testutil.Check(t, err)
	return out
}

// object reads one object as JSON into v.
func (c *Cluster) object(t *testing.T, v any, args ...string) {
	t.Helper()
	out := c.kubectl(t, append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("kubectl %v: %v", args, err)
	}
}

// jsonpath reads a field.
func (c *Cluster) jsonpath(t *testing.T, path string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(c.kubectl(t, append(args, "-o", "jsonpath="+path)...))
}

// eventually polls cond until it holds or the time is up.
func (c *Cluster) eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	testutil.Check(t, c.Wait(context.Background(), within, what, func() (bool, error) { return cond(), nil }))
}

// get answers a kubectl get's jsonpath, or "" on an error (the object may not exist yet).
func (c *Cluster) get(path string, args ...string) string {
	out, err := c.Kubectl(context.Background(), append(args, "-o", "jsonpath="+path)...)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// httpClient opens a connection per request: a Service's ClusterIP reaches its pods only once
// kube-proxy has programmed it, and a kept-alive connection made before that (to whatever the
// host's default route leads to) would keep answering for the Service afterwards.
var httpClient = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// call sends an HTTP request and returns the status and body.
func call(t *testing.T, method, url string, body any, headers ...string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		if s, ok := body.(string); ok {
			rd = strings.NewReader(s)
		} else {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
	}
	req, err := http.NewRequest(method, url, rd)
	testutil.Check(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// serviceURL is http://<ClusterIP>:<port> of a Service, once it accepts connections: the host
// reaches ClusterIPs through kube-proxy's rules, as a pod does, and kube-proxy programs a new
// Service's endpoints a moment after its pods are ready.
func (c *Cluster) serviceURL(t *testing.T, ns, name string) string {
	t.Helper()
	ip := c.jsonpath(t, "{.spec.clusterIP}", "-n", ns, "get", "service", name)
	port := c.jsonpath(t, "{.spec.ports[0].port}", "-n", ns, "get", "service", name)
	// A connection that opens proves nothing: on a host whose default route leads to a proxy,
	// any address accepts (and answers 404). The Service is reachable once kube-proxy's rule for
	// its ClusterIP and port is in the nat table.
	rule := fmt.Sprintf("-d %s/32 -p tcp", ip)
	c.eventually(t, 60*time.Second, "kube-proxy programs service "+ns+"/"+name, func() bool {
		out, err := exec.Command("iptables", "-w", "-t", "nat", "-S", "KUBE-SERVICES").Output()
		if err != nil {
			return false
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, rule) && strings.Contains(l, "--dport "+port+" ") {
				return true
			}
		}
		return false
	})
	return fmt.Sprintf("http://%s:%s", ip, port)
}

// sseEvents reads an AG-UI stream's event types.
func sseEvents(t *testing.T, url string, body any, headers ...string) []string {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := httpClient.Do(req)
	testutil.Check(t, err)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("AG-UI %s: %d %s %s", url, res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	var types []string
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(data), &ev) == nil {
			types = append(types, ev.Type)
		}
	}
	return types
}

// podProcess is what the kernel says of a pod's main container process: its user and whether
// its root filesystem is mounted read-only.
type podProcess struct {
	PID        int
	UID        string
	ReadOnlyFS bool
}

// containerProcess finds the process of a pod's container through containerd (the task's pid)
// and reads /proc.
func (c *Cluster) containerProcess(t *testing.T, ns, pod, container string) podProcess {
	t.Helper()
	ctx := context.Background()
	ids, err := c.ctr(ctx, "containers", "ls", "-q",
		fmt.Sprintf(`labels."io.kubernetes.pod.namespace"==%s,labels."io.kubernetes.pod.name"==%s,labels."io.kubernetes.container.name"==%s`, ns, pod, container))
	if err != nil || len(strings.Fields(ids)) == 0 {
		t.Fatalf("no container %s of pod %s/%s in containerd: %v %q", container, ns, pod, err, ids)
	}
	tasks, err := c.ctr(ctx, "tasks", "ls")
	testutil.Check(t, err)
	var p podProcess
	for _, id := range strings.Fields(ids) {
		for _, line := range strings.Split(tasks, "\n") {
			f := strings.Fields(line)
			if len(f) >= 3 && f[0] == id && f[2] == "RUNNING" {
				fmt.Sscan(f[1], &p.PID)
			}
		}
	}
	if p.PID == 0 {
		t.Fatalf("container %s of pod %s/%s has no running task:\n%s", container, ns, pod, tasks)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.PID))
	testutil.Check(t, err)
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Uid:" {
			p.UID = f[1]
		}
	}
	mounts, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", p.PID))
	testutil.Check(t, err)
	for _, line := range strings.Split(string(mounts), "\n") {
		if f := strings.Fields(line); len(f) >= 6 && f[4] == "/" {
			p.ReadOnlyFS = strings.HasPrefix(f[5], "ro")
		}
	}
	return p
}
