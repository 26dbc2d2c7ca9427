// Package e2e proves the install path on a real kube-apiserver and etcd (envtest): the Helm
// chart installs, kubectl applies the samples, the operator (the agentry binary, running with
// the chart's ServiceAccount identity and RBAC) renders them, and the runtime started exactly as
// the rendered Deployment says answers the real @ag-ui/client at the path the Ingress routes.
package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

var (
	root   string
	binary string
	// runtimeBinary is the runtime build (the agentry-runtime image's binary), which runs what
	// the rendered Deployments say.
	runtimeBinary string
	helmBin       string
)

func TestMain(m *testing.M) {
	abs, err := filepath.Abs("../..")
	if err != nil {
		panic(err)
	}
	root = abs
	helmBin = filepath.Join(root, "bin", "helm")
	if _, err := os.Stat(helmBin); err != nil {
		build := exec.Command("make", "helm")
		build.Dir = root
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "failed to build helm:", err)
			os.Exit(1)
		}
	}
	testutil.RunWithBinaries(m, root, &binary, &runtimeBinary)
}

// cluster is an envtest API server with kubeconfigs for an admin and for the operator's
// ServiceAccount.
type cluster struct {
	env      *envtest.Environment
	admin    string
	operator string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	testutil.NoError(t, testutil.EnvtestAssets(root))
	env := &envtest.Environment{}
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c := &cluster{env: env}
	c.admin = testutil.Kubeconfig(t, env, envtest.User{Name: "e2e-admin", Groups: []string{"system:masters"}})
	// The chart binds its RBAC to the ServiceAccount agentry in agentry-system.
	c.operator = serviceAccountKubeconfig(t, c, "agentry-system", "agentry")
	return c
}

// sh runs a README-style command line with KUBECONFIG set, from the module root.
func (c *cluster) sh(t *testing.T, line string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.admin, "PATH="+filepath.Join(root, "bin")+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("$ %s\n%v\n%s", line, err, out)
	}
	return string(out)
}

// jsonOf gets an object as JSON through kubectl.
func (c *cluster) jsonOf(t *testing.T, args string, v any) {
	t.Helper()
	out := c.sh(t, "kubectl get "+args+" -o json")
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("kubectl get %s: %v", args, err)
	}
}

func waitFor(t *testing.T, what string, timeout time.Duration, check func() error) {
	t.Helper()
	testutil.Eventually(t, what, timeout, 200*time.Millisecond, check)
}

func TestInstallAndEndToEnd(t *testing.T) {
	c := startCluster(t)

	// The README's cluster quickstart, command for command, taken from the README itself.
	quickstart := readmeCommands(t, "## Cluster quickstart")
	if len(quickstart) < 7 || !strings.HasPrefix(quickstart[0], "helm install") {
		t.Fatalf("README quickstart commands: %q", quickstart)
	}
	installChart(t, c, quickstart[0])
	metricsAddr := startOperator(t, c)
	scraper := metricsTokens(t, c)
	deploymentURL, patchModel := applySamplesAndExpose(t, c, quickstart)
	headers := authHeaders(t, c, "chef")
	routeToScriptedModel(t, c, patchModel)
	rt, routes := callAsThePlatform(t, c, deploymentURL, headers)
	toolEditReachesTheRuntime(t, c, rt, routes, headers)
	mcpEndToEnd(t, c, routes, headers)
	scraper.check(t, "https://"+metricsAddr+"/metrics")
}

// installChart runs the quickstart's helm install: its objects, and least-privilege RBAC (as
// generated from markers) in force for the operator's identity.
func installChart(t *testing.T, c *cluster, helmInstall string) {
	out := c.sh(t, helmInstall)
	if !strings.Contains(out, "STATUS: deployed") || !strings.Contains(out, "deploymentURL") {
		t.Fatalf("helm install:\n%s", out)
	}
	for _, obj := range []string{"crd/agents.agentry.dev", "crd/tools.agentry.dev", "crd/frontendactions.agentry.dev",
		"-n agentry-system deployment/agentry-operator", "-n agentry-system serviceaccount/agentry", "clusterrole/agentry-operator",
		"clusterrolebinding/agentry-operator", "-n agentry-system role/agentry-leader-election", "-n agentry-system service/agentry-metrics",
		"clusterrole/agentry-metrics-auth", "clusterrolebinding/agentry-metrics-auth", "clusterrole/agentry-metrics-reader"} {
		c.sh(t, "kubectl get "+obj)
	}
	canI(t, c.operator, "operator", map[string]string{
		"create deployments.apps -n default": "yes", "update agents.agentry.dev --subresource=status": "yes", "list secrets -A": "yes",
		"watch mcpservers.agentry.dev -A": "yes", "patch mcpservers.agentry.dev --subresource=status": "yes", "update mcpservers.agentry.dev": "no",
		"create tokenreviews.authentication.k8s.io": "yes", "create subjectaccessreviews.authorization.k8s.io": "yes",
		"create secrets": "no", "delete agents.agentry.dev": "no", "update agents.agentry.dev": "no", "create pods": "no", "get nodes": "no",
	})
}

// canI checks what the kubeconfig's user may do: "verb resource [flags]" → "yes" or "no".
func canI(t *testing.T, kubeconfig, who string, want map[string]string) {
	t.Helper()
	for check, w := range want {
		out, _ := exec.Command("kubectl", append([]string{"--kubeconfig", kubeconfig, "auth", "can-i"}, strings.Fields(check)...)...).CombinedOutput()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if got := lines[len(lines)-1]; got != w {
			t.Errorf("%s can-i %s: %q, want %q", who, check, got, w)
		}
	}
}

// startOperator runs the operator as the chart's ServiceAccount and returns its metrics address.
func startOperator(t *testing.T, c *cluster) string {
	metricsAddr, probeAddr := freeAddr(t), freeAddr(t)
	// The operator pod cannot run here (no kubelet, no images): run the same binary with the
	// chart's ServiceAccount identity, so the chart's RBAC is what it is allowed to do.
	testutil.Start(t, binary, root, []string{"KUBECONFIG=" + c.operator}, `msg="starting the operator"`,
		"operator", "--runtime-image", "ghcr.io/agentry-dev/agentry:e2e", "--metrics-bind-address", metricsAddr, "--health-probe-bind-address", probeAddr,
		"--leader-elect", "--leader-election-namespace", "agentry-system")
	// Leader election works with the chart's leader-election Role; probes and metrics answer.
	waitFor(t, "the leader election Lease", 30*time.Second, func() error {
		_, err := exec.Command("kubectl", "--kubeconfig", c.admin, "get", "lease", "-n", "agentry-system", "agentry-operator.agentry.dev").CombinedOutput()
		return err
	})
	for _, u := range []string{"http://" + probeAddr + "/healthz", "http://" + probeAddr + "/readyz"} {
		if body := httpGet(t, u); !strings.Contains(body, "ok") {
			t.Errorf("%s: %q", u, body)
		}
	}
	return metricsAddr
}

// applySamplesAndExpose follows the quickstart: the Secret and the samples, then chef exposed
// over HTTPS with an Ingress and auth headers; it returns chef's Deployment URL.
func applySamplesAndExpose(t *testing.T, c *cluster, quickstart []string) (deploymentURL, patchModel string) {
	c.sh(t, quickstart[1]) // kubectl create secret
	c.sh(t, quickstart[2]) // kubectl apply -f config/samples/
	waitFor(t, "kubectl get agents to list both samples with a status", 30*time.Second, func() error {
		out := c.sh(t, quickstart[3])
		if !strings.Contains(out, "AGENT ID") || !strings.Contains(out, "chef") || !strings.Contains(out, "weather") || strings.Count(out, "False") < 2 {
			return fmt.Errorf("%s", out)
		}
		return nil
	})
	if out := c.sh(t, quickstart[4]); out != "" {
		t.Errorf("an unexposed agent has no Deployment URL yet: %q", out)
	}
	// Expose chef over HTTPS with an Ingress and auth headers: every command up to the next
	// one that prints the Deployment URL.
	// The README's patch of the ModelConfig is kept for routeToScriptedModel, which runs it
	// with the scripted model's URL: here it would send the samples to an address off the
	// machine.
	urlCmd := 5
	for ; urlCmd < len(quickstart) && !strings.Contains(quickstart[urlCmd], "{.status.deploymentURL}"); urlCmd++ {
		if strings.HasPrefix(quickstart[urlCmd], "kubectl patch modelconfig ") {
			patchModel = quickstart[urlCmd]
			continue
		}
		c.sh(t, quickstart[urlCmd])
	}
	if patchModel == "" {
		t.Fatal("the README's quickstart has no kubectl patch modelconfig command")
	}
	if urlCmd == len(quickstart) {
		t.Fatalf("the README's expose block has no deploymentURL command: %q", quickstart[5:])
	}
	waitFor(t, "chef's Deployment URL", 30*time.Second, func() error {
		deploymentURL = c.sh(t, quickstart[urlCmd])
		if deploymentURL != "https://agents.example.com/api/agents/chef/ag-ui" {
			var a struct {
				Status struct {
					Conditions []struct{ Type, Reason, Message string }
				}
			}
			c.jsonOf(t, "agent chef", &a)
			for _, cond := range a.Status.Conditions {
				if cond.Type == "Exposed" && cond.Reason == "AuthRequired" {
					t.Fatalf("the README's expose commands publish chef without auth, which the operator refuses: %s", cond.Message)
				}
			}
			return fmt.Errorf("%q", deploymentURL)
		}
		return nil
	})
	return deploymentURL, patchModel
}

// routeToScriptedModel points the samples at the scripted model, as at a self-hosted endpoint:
// the README's patch of their ModelConfig (patchModel), with the scripted model's URL for the
// README's example endpoint.
func routeToScriptedModel(t *testing.T, c *cluster, patchModel string) {
	_, modelURL := testutil.Start(t, binary, root, nil, `listening on (http://\S+)`, "scripted-model", "--addr", "127.0.0.1:0")
	const example = "http://vllm.models:8000/v1"
	if !strings.Contains(patchModel, example) {
		t.Fatalf("the README's ModelConfig patch no longer names %s: %s", example, patchModel)
	}
	c.sh(t, strings.Replace(patchModel, example, modelURL, 1))
	waitFor(t, "the ModelConfig's new endpoint to reach chef's config and Deployment", 30*time.Second, func() error {
		config := c.sh(t, `kubectl get configmap agentry-chef -o jsonpath='{.data.agent\.yaml}'`)
		hash := c.sh(t, "kubectl get agent chef -o jsonpath='{.status.configHash}'")
		rolled := c.sh(t, `kubectl get deployment agentry-chef -o jsonpath='{.spec.template.metadata.annotations.agentry\.dev/config-hash}'`)
		if !strings.Contains(config, "baseURL: "+modelURL) || hash == "" || hash != rolled {
			return fmt.Errorf("config %s; hash %q, deployment %q", config, hash, rolled)
		}
		return nil
	})
}

// callAsThePlatform runs chef as its Deployment says and calls it as a chat platform would at the
// Ingress's paths; it returns the running runtime and those paths.
func callAsThePlatform(t *testing.T, c *cluster, deploymentURL string, headers map[string]string) (*renderedRuntime, map[string]string) {
	rt := startRenderedRuntime(t, c, "chef")
	routes := ingressPathsOf(t, c, "chef")
	if !strings.HasSuffix(deploymentURL, routes["ag-ui"]) {
		t.Errorf("the Deployment URL %s is not an Ingress path %v", deploymentURL, routes)
	}
	// Without the platform's headers the runtime refuses the call.
	if code := postStatus(t, rt.base+routes["generate"], nil); code != http.StatusUnauthorized {
		t.Errorf("generate without the auth headers: %d, want 401", code)
	}
	platformURL := rt.base + routes["ag-ui"]
	headersJSON, _ := json.Marshal(headers)
	node := exec.Command("node", "--import", filepath.Join(root, "test/e2e/testdata/platform-headers.mjs"), "e2e-platform.mjs", platformURL)
	node.Dir = filepath.Join(root, "test/conformance")
	node.Env = append(os.Environ(), "AGENTRY_E2E_HEADERS="+string(headersJSON))
	nodeOut, err := node.CombinedOutput()
	t.Logf("platform client:\n%s", nodeOut)
	if err != nil {
		t.Fatalf("the platform client failed: %v\nruntime:\n%s", err, rt.proc.Output())
	}
	first := generate(t, rt.base+routes["generate"], headers, "What can I use instead of butter?")
	if !strings.Contains(first, "olive oil") {
		t.Errorf("generate: %s", first)
	}
	return rt, routes
}

// toolEditReachesTheRuntime: a Tool edit reaches the runtime (rt, running) through a re-render.
func toolEditReachesTheRuntime(t *testing.T, c *cluster, rt *renderedRuntime, routes, headers map[string]string) {
	oldHash := rt.hash
	c.sh(t, `kubectl patch tool suggest-substitute --type json -p '[{"op":"replace","path":"/spec/execute/cel","value":"{\"substitute\": \"ghee\", \"reason\": \"edited through kubectl\"}"}]'`)
	waitFor(t, "the Deployment to roll with a new config hash", 30*time.Second, func() error {
		if h := podTemplateHash(t, c, "chef"); h == oldHash {
			return fmt.Errorf("hash still %s", h)
		}
		return nil
	})
	rt.stop()
	rt = startRenderedRuntime(t, c, "chef")
	second := generate(t, rt.base+routes["generate"], headers, "What can I use instead of butter?")
	if !strings.Contains(second, "ghee") || !strings.Contains(second, "edited through kubectl") {
		t.Errorf("after the Tool edit: %s", second)
	}
	if strings.Contains(rt.proc.Output(), "sk-e2e-not-a-real-key") {
		t.Error("the API key reached the runtime log")
	}
	rt.stop()
}

// readmeCommands returns the command lines of the shell blocks in the README section that
// starts with heading, comments stripped.
func readmeCommands(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	testutil.NoError(t, err)
	text := string(data)
	i := strings.Index(text, heading+"\n")
	if i < 0 {
		t.Fatalf("README has no %q", heading)
	}
	text = text[i+len(heading):]
	if j := strings.Index(text, "\n## "); j >= 0 {
		text = text[:j]
	}
	var cmds []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			in = true
		case strings.HasPrefix(line, "```"):
			in = false
		case in && strings.TrimSpace(line) != "":
			if k := strings.Index(line, "   #"); k >= 0 {
				line = line[:k]
			}
			cmds = append(cmds, strings.TrimSpace(line))
		}
	}
	return cmds
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// send makes a request (a JSON body unless body is empty) and returns its status and body.
func send(t *testing.T, hc *http.Client, method, url string, headers map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	testutil.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	_, body := send(t, http.DefaultClient, http.MethodGet, url, nil, "")
	return body
}
