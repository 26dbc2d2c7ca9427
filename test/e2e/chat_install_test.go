package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// renderedChat is agentry chat started as a rendered chat Deployment says.
type renderedChat struct {
	proc *testutil.Proc
	base string
	// metrics is the metrics listener's URL, "" when the binary has no --metrics-addr yet.
	metrics string
	// metricsBase is the metrics listener's base URL (http://host:port), "" without one.
	metricsBase string
	// liveness and readiness are the rendered container's probes.
	liveness, readiness *corev1.Probe
}

// startRenderedChat runs agentry exactly as the chat Deployment in ns says: its args, its env
// (secretKeyRef values read from the installed Secret), its Secret volumes written as files at
// their mount paths, claims and emptyDirs as empty directories. Absolute paths (also in
// file: storage URLs) are placed under a temporary root, the listen addresses are free loopback
// ports, and it talks to the API server as the chat ServiceAccount (kubeconfig), so the chart's
// RBAC is what --agent-refs may do. Nothing else is changed.
func startRenderedChat(t *testing.T, c *cluster, ns, name, kubeconfig string) *renderedChat {
	t.Helper()
	p := loadPod(t, c, ns, name)
	env := append([]string{"KUBECONFIG=" + kubeconfig}, p.env...)
	metricsAddr := ""
	if slices.Contains(p.ctr.Args, "--metrics-addr") {
		metricsAddr = freeAddr(t)
	}
	args := p.localArgs(map[string]string{"--addr": "127.0.0.1:0", "--metrics-addr": metricsAddr})
	proc, addr := testutil.Start(t, binary, root, env, `"serving the chat service".*"addr":"([^"]+)"`, args...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("chat output:\n%s", proc.Output())
		}
	})
	rc := &renderedChat{proc: proc, base: "http://" + addr, liveness: p.ctr.LivenessProbe, readiness: p.ctr.ReadinessProbe}
	if metricsAddr != "" {
		rc.metricsBase = "http://" + metricsAddr
		rc.metrics = rc.metricsBase + "/metrics"
	}
	return rc
}

// probe runs a rendered probe as the kubelet would against the process's listeners (the
// container ports http and metrics): the HTTP status of an httpGet probe, 200 when a
// tcpSocket probe connects, 0 when the listener does not answer.
func (r *renderedChat) probe(t *testing.T, p *corev1.Probe) int {
	t.Helper()
	if p == nil {
		t.Fatal("the chat container has no such probe")
	}
	listener := func(port string) string {
		switch port {
		case "http":
			return r.base
		case "metrics":
			if r.metricsBase == "" {
				t.Fatal("the probes name the metrics port, but this agentry chat has no --metrics-addr")
			}
			return r.metricsBase
		}
		t.Fatalf("probe port %q: not a named container port", port)
		return ""
	}
	switch {
	case p.HTTPGet != nil:
		client := http.Client{Timeout: time.Duration(p.TimeoutSeconds) * time.Second}
		resp, err := client.Get(listener(p.HTTPGet.Port.String()) + p.HTTPGet.Path)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	case p.TCPSocket != nil:
		conn, err := net.DialTimeout("tcp", strings.TrimPrefix(listener(p.TCPSocket.Port.String()), "http://"), 5*time.Second)
		if err != nil {
			return 0
		}
		conn.Close()
		return http.StatusOK
	}
	t.Fatalf("unsupported probe %+v", p)
	return 0
}

func (r *renderedChat) do(t *testing.T, method, path string, headers map[string]string, body string) (int, string) {
	t.Helper()
	return send(t, http.DefaultClient, method, r.base+path, headers, body)
}

func secretData(t *testing.T, c *cluster, ns, name string) map[string][]byte {
	t.Helper()
	var s corev1.Secret
	c.jsonOf(t, "-n "+ns+" secret "+name, &s)
	return s.Data
}

// serviceAccountKubeconfig authenticates as a ServiceAccount would (client certificate with
// its user name and groups): RBAC bound to it applies exactly as to the pod's token.
func serviceAccountKubeconfig(t *testing.T, c *cluster, ns, name string) string {
	return testutil.Kubeconfig(t, c.env, envtest.User{Name: "system:serviceaccount:" + ns + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}})
}

// notesAdminCommands returns the NOTES' first-admin commands (APIKEY=… and the curl lines)
// with the chat URL they name replaced by base.
func notesAdminCommands(t *testing.T, notes, base string) string {
	t.Helper()
	var cmds []string
	for _, line := range strings.Split(notes, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "APIKEY=") || strings.HasPrefix(line, "curl ") {
			line = strings.ReplaceAll(line, "http://localhost:8080", base)
			cmds = append(cmds, strings.Replace(line, "curl ", "curl -fsS ", 1))
		}
	}
	if len(cmds) != 2 {
		t.Fatalf("NOTES must show how to read the API key and invite the first admin: %q\n%s", cmds, notes)
	}
	return strings.Join(cmds, "\n")
}

// TestChatHelmInstall installs the chart with chat.enabled on a real API server, upgrades it
// (same values, then changed unrelated values) and checks the generated credentials survive,
// then runs the chat service as the rendered Deployment says and follows the NOTES to create
// the first admin. A second release runs two replicas on a real PostgreSQL.
func TestChatHelmInstall(t *testing.T) {
	c := startCluster(t)
	const ns = "agentry-system"
	install, creds := chatInstallKeepsCredentials(t, c, ns)
	// The chat ServiceAccount reads Agents and nothing else.
	chatKC := serviceAccountKubeconfig(t, c, ns, "agentry-chat")
	canI(t, chatKC, "chat", map[string]string{
		"list agents.agentry.dev -A": "yes", "watch agents.agentry.dev -n default": "yes", "get agents.agentry.dev -n team-a": "yes",
		"create agents.agentry.dev": "no", "update agents.agentry.dev": "no", "get secrets -n " + ns: "no", "list pods": "no",
	})
	chatFirstAdmin(t, c, ns, chatKC, install, creds)
	chatOnPostgres(t, c)
}

// chatInstallKeepsCredentials installs, upgrades, uninstalls and installs chat.enabled again: the
// generated credentials stay. It returns the last install's output (the NOTES) and them.
func chatInstallKeepsCredentials(t *testing.T, c *cluster, ns string) (string, map[string][]byte) {
	install := c.sh(t, "helm install agentry charts/agentry -n "+ns+" --create-namespace --set chat.enabled=true")
	if !strings.Contains(install, "STATUS: deployed") || !strings.Contains(install, "svc/agentry-chat 8080:80") {
		t.Fatalf("helm install:\n%s", install)
	}
	for _, obj := range []string{"deployment/agentry-chat", "service/agentry-chat", "service/agentry-chat-metrics", "serviceaccount/agentry-chat", "pvc/agentry-chat-data",
		"secret/agentry-chat-credentials", "deployment/agentry-operator"} {
		c.sh(t, "kubectl get -n "+ns+" "+obj)
	}
	creds := secretData(t, c, ns, "agentry-chat-credentials")
	if len(creds["apiKey"]) < 32 || len(creds["headersKey"]) != 64 {
		t.Fatalf("generated credentials: apiKey %d bytes, headersKey %d bytes", len(creds["apiKey"]), len(creds["headersKey"]))
	}
	if strings.Contains(install, string(creds["apiKey"])) || strings.Contains(install, string(creds["headersKey"])) {
		t.Error("the NOTES must not print a credential")
	}

	// Upgrades keep the generated credentials: clients hold the API key, stored agent headers
	// are encrypted with the headers key.
	for i, set := range []string{"chat.enabled=true", "chat.enabled=true,chat.logLevel=debug,logLevel=debug,chat.resources.limits.memory=1Gi"} {
		out := c.sh(t, "helm upgrade agentry charts/agentry -n "+ns+" --set "+set)
		if !strings.Contains(out, fmt.Sprintf("REVISION: %d", i+2)) {
			t.Fatalf("helm upgrade:\n%s", out)
		}
		if got := secretData(t, c, ns, "agentry-chat-credentials"); !reflect.DeepEqual(got, creds) {
			t.Fatalf("helm upgrade --set %s changed the generated credentials", set)
		}
	}
	if a := c.sh(t, "kubectl get -n "+ns+" deployment agentry-chat -o jsonpath='{.spec.template.spec.containers[0].args}'"); !strings.Contains(a, "--log-level=debug") {
		t.Errorf("the upgrade did not apply: %s", a)
	}
	// helm uninstall leaves the credentials and the data claim; installing again reuses them.
	c.sh(t, "helm uninstall agentry -n "+ns)
	c.sh(t, "kubectl get -n "+ns+" secret/agentry-chat-credentials pvc/agentry-chat-data")
	install = c.sh(t, "helm install agentry charts/agentry -n "+ns+" --set chat.enabled=true")
	if got := secretData(t, c, ns, "agentry-chat-credentials"); !reflect.DeepEqual(got, creds) {
		t.Fatal("a reinstall changed the kept credentials")
	}
	return install, creds
}

// chatFirstAdmin runs the chat service as the installed Deployment says: its probes answer, the
// NOTES' commands create the first admin, the Secret's API key creates users, and no
// credential reaches its log.
func chatFirstAdmin(t *testing.T, c *cluster, ns, chatKC, install string, creds map[string][]byte) {
	chat := startRenderedChat(t, c, ns, "agentry-chat", chatKC)
	if code, body := chat.do(t, http.MethodGet, "/chat/v1/healthz", nil, ""); code != http.StatusOK || !strings.Contains(body, "sqlite") {
		t.Fatalf("healthz: %d %s", code, body)
	}
	// The installed Deployment's probes answer on the listeners they name.
	if live, ready := chat.probe(t, chat.liveness), chat.probe(t, chat.readiness); live != http.StatusOK || ready != http.StatusOK {
		t.Errorf("rendered probes: liveness %d, readiness %d (%v, %v)\nchat:\n%s", live, ready, chat.liveness, chat.readiness, chat.proc.Output())
	}
	// The NOTES' commands, with the port-forward's URL replaced by the process's.
	script := notesAdminCommands(t, install, chat.base)
	cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.admin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the NOTES' first-admin commands:\n%s\n%v\n%s\nchat:\n%s", script, err, out, chat.proc.Output())
	}
	// The invitation's link carries its code: the person chooses a password there.
	var inv struct {
		Code string `json:"code"`
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &inv); err != nil || inv.Code == "" {
		t.Fatalf("no invitation from the NOTES' commands: %s", out)
	}
	if !strings.Contains(install, "http://localhost:8080/#invite=<code from the answer>") {
		t.Errorf("the NOTES do not say which link to open:\n%s", install)
	}
	accept, _ := json.Marshal(map[string]string{"code": inv.Code, "password": "first-admin-password"})
	code, body := chat.do(t, http.MethodPost, "/chat/v1/auth/invitation/accept", nil, string(accept))
	var tok struct {
		AuthToken string `json:"authToken"`
	}
	if err := json.Unmarshal([]byte(body), &tok); code != http.StatusOK || err != nil || tok.AuthToken == "" {
		t.Fatalf("accepting the first admin's invitation: %d %s", code, body)
	}
	code, body = chat.do(t, http.MethodGet, "/chat/v1/users/admin", map[string]string{"Authorization": "Bearer " + tok.AuthToken}, "")
	if code != http.StatusOK || !strings.Contains(body, `"role":"admin"`) {
		t.Errorf("the admin with its token: %d %s", code, body)
	}
	// The API key from the Secret creates users; another key does not.
	apiKey := map[string]string{"apikey": string(creds["apiKey"])}
	if code, body := chat.do(t, http.MethodPost, "/chat/v1/users", apiKey, `{"uid":"alice","name":"Alice"}`); code != http.StatusCreated {
		t.Errorf("create a user with the Secret's API key: %d %s", code, body)
	}
	if code, _ := chat.do(t, http.MethodPost, "/chat/v1/users", map[string]string{"apikey": "not-the-key-0123456789"}, `{"uid":"bob","name":"Bob"}`); code != http.StatusUnauthorized {
		t.Errorf("a wrong API key: %d, want 401", code)
	}
	if chat.metrics != "" {
		if m := httpGet(t, chat.metrics); !strings.Contains(m, "# TYPE") {
			t.Errorf("chat metrics: %.200s", m)
		}
	}
	for _, s := range []string{string(creds["apiKey"]), string(creds["headersKey"]), tok.AuthToken} {
		if strings.Contains(chat.proc.Output(), s) {
			t.Error("a credential reached the chat log")
		}
	}
}

// chatOnPostgres: two replicas on PostgreSQL, the URL from the user's Secret; both replicas (as
// rendered) serve the same data, and an outage makes them unready, never dead.
func chatOnPostgres(t *testing.T, c *cluster) {
	pg := testutil.StartPostgres(t)
	const pgNS = "chat-pg"
	c.sh(t, "kubectl create namespace "+pgNS)
	c.sh(t, "kubectl create secret generic chat-postgres -n "+pgNS+" --from-literal=url="+pg.URL)
	out2 := c.sh(t, "helm install chat charts/agentry -n "+pgNS+" --skip-crds --set chat.enabled=true,chat.replicas=2,chat.storage.type=postgres,chat.storage.existingSecret=chat-postgres")
	if strings.Contains(out2, pg.URL) {
		t.Error("the NOTES must not print the PostgreSQL URL")
	}
	if a := c.sh(t, "kubectl get -n "+pgNS+" deployment chat-agentry-chat -o json"); strings.Contains(a, pg.URL) || strings.Contains(a, "postgres://") {
		t.Error("the PostgreSQL URL must reach the pod from the Secret only")
	}
	pgKC := serviceAccountKubeconfig(t, c, pgNS, "chat-agentry-chat")
	r1 := startRenderedChat(t, c, pgNS, "chat-agentry-chat", pgKC)
	r2 := startRenderedChat(t, c, pgNS, "chat-agentry-chat", pgKC)
	if code, body := r1.do(t, http.MethodGet, "/chat/v1/healthz", nil, ""); code != http.StatusOK || !strings.Contains(body, "postgres") {
		t.Fatalf("postgres healthz: %d %s", code, body)
	}
	pgKey := map[string]string{"apikey": string(secretData(t, c, pgNS, "chat-agentry-chat-credentials")["apiKey"])}
	if code, body := r1.do(t, http.MethodPost, "/chat/v1/users", pgKey, `{"uid":"carol","name":"Carol"}`); code != http.StatusCreated {
		t.Fatalf("create a user on replica 1: %d %s", code, body)
	}
	if code, body := r2.do(t, http.MethodPost, "/chat/v1/users/carol/auth_tokens", pgKey, ""); code != http.StatusCreated {
		t.Errorf("replica 2 mints a token for replica 1's user: %d %s", code, body)
	}

	// A PostgreSQL outage makes the replicas unready, never dead: liveness does not check
	// the database, so the kubelet would not restart every replica at once. Back up, they
	// are ready again.
	for _, r := range []*renderedChat{r1, r2} {
		if live, ready := r.probe(t, r.liveness), r.probe(t, r.readiness); live != http.StatusOK || ready != http.StatusOK {
			t.Fatalf("postgres, rendered probes: liveness %d, readiness %d", live, ready)
		}
	}
	pg.Stop()
	for _, r := range []*renderedChat{r1, r2} {
		if live, ready := r.probe(t, r.liveness), r.probe(t, r.readiness); live != http.StatusOK || ready != http.StatusServiceUnavailable {
			t.Errorf("PostgreSQL down: liveness %d (want 200), readiness %d (want 503)", live, ready)
		}
	}
	pg.Start()
	waitFor(t, "readiness once PostgreSQL is back", 30*time.Second, func() error {
		if code := r1.probe(t, r1.readiness); code != http.StatusOK {
			return fmt.Errorf("readiness %d\nchat:\n%s", code, r1.proc.Output())
		}
		return nil
	})
}
