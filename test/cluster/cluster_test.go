package cluster

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const ns = "agentry-system"

// TestAUserOnARealNode is the README's cluster quickstart on a real kubelet, step by step, as a
// platform engineer runs it: the chart, the samples with the scripted model as a pod, changes
// rolling the agents' pods, the chat service calling an agent by in-cluster reference, upgrade
// and uninstall. Steps depend on the ones before: the first failure stops the walk.
func TestAUserOnARealNode(t *testing.T) {
	c := cluster(t)
	for _, step := range []struct {
		name string
		fn   func(*testing.T, *Cluster)
	}{
		{"helm install runs the operator as the chart says", helmInstall},
		{"operator metrics answer only an authorised caller", operatorMetrics},
		{"the samples run on the scripted model", samples},
		{"changes roll the agents' pods", changesRoll},
		{"an agent asks another through its Service", agentAsksAgent},
		{"a deleted pod is replaced", podReplaced},
		{"the chat service answers through an agent by reference", chatService},
		{"in-cluster callers use their ServiceAccount, no shared secret", serviceAccountCallers},
		{"helm upgrade keeps the chat credentials", upgradeKeepsCredentials},
		{"a rolling upgrade under load loses nothing", rollingUpgradeUnderLoad},
		{"deleting an Agent removes what it owned", agentDeletion},
		{"helm uninstall leaves nothing running", uninstall},
	} {
		if !t.Run(step.name, func(t *testing.T) { step.fn(t, c) }) {
			t.FailNow()
		}
	}
}

func helmInstall(t *testing.T, c *Cluster) {
	// The README's command, verbatim.
	c.sh(t, "helm install agentry charts/agentry --namespace agentry-system --create-namespace")
	c.kubectl(t, "-n", ns, "rollout", "status", "deployment/agentry-operator", "--timeout=120s")
	var pods corev1.PodList
	c.object(t, &pods, "-n", ns, "get", "pods", "-l", "app.kubernetes.io/name=agentry,app.kubernetes.io/component=operator")
	if len(pods.Items) != 1 || pods.Items[0].Status.Phase != corev1.PodRunning {
		t.Fatalf("operator pods: %d, phase %v", len(pods.Items), phaseOf(pods))
	}
	pod := pods.Items[0]
	sc := pod.Spec.Containers[0].SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("operator container security context %+v", sc)
	}
	// What the kernel says: the process runs as 65532 on a read-only root filesystem.
	p := c.containerProcess(t, ns, pod.Name, pod.Spec.Containers[0].Name)
	if p.UID != "65532" || !p.ReadOnlyFS {
		t.Errorf("operator process %+v, want uid 65532 on a read-only root", p)
	}
	// Its RBAC lets it do its work: the ServiceAccount may watch Agents and manage Deployments.
	sa := "system:serviceaccount:" + ns + ":" + pod.Spec.ServiceAccountName
	for _, check := range [][]string{{"watch", "agents.agentry.dev"}, {"create", "deployments.apps"}, {"patch", "agents.agentry.dev", "--subresource=status"}} {
		if out := strings.TrimSpace(c.kubectl(t, append([]string{"auth", "can-i", "--as", sa, "-A"}, check...)...)); out != "yes" {
			t.Errorf("operator may not %s %s: %s", check[0], check[1], out)
		}
	}
	// ... and nothing the chart does not give it.
	if out, _ := c.Kubectl(t.Context(), "auth", "can-i", "delete", "nodes", "--as", sa); !strings.HasSuffix(strings.TrimSpace(out), "no") {
		t.Errorf("the operator may delete nodes: %s", out)
	}
}

func phaseOf(pods corev1.PodList) []corev1.PodPhase {
	var out []corev1.PodPhase
	for _, p := range pods.Items {
		out = append(out, p.Status.Phase)
	}
	return out
}

func operatorMetrics(t *testing.T, c *Cluster) {
	ip := c.jsonpath(t, "{.spec.clusterIP}", "-n", ns, "get", "service", "agentry-metrics")
	port := c.jsonpath(t, "{.spec.ports[0].port}", "-n", ns, "get", "service", "agentry-metrics")
	url := fmt.Sprintf("https://%s:%s/metrics", ip, port)
	c.kubectl(t, "-n", ns, "create", "serviceaccount", "prometheus")
	c.kubectl(t, "-n", ns, "create", "serviceaccount", "stranger")
	c.kubectl(t, "create", "clusterrolebinding", "prometheus-agentry-metrics", "--clusterrole", "agentry-metrics-reader", "--serviceaccount", ns+":prometheus")
	reader := strings.TrimSpace(c.kubectl(t, "-n", ns, "create", "token", "prometheus"))
	stranger := strings.TrimSpace(c.kubectl(t, "-n", ns, "create", "token", "stranger"))
	client := insecureClient(10 * time.Second)
	status := func(token string) int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := client.Do(req)
		if err != nil {
			// The Service's rules or the operator's metrics listener may not be in place yet
			// right after the pod is Ready: retried by eventually below, reported if it lasts.
			t.Logf("metrics: %v", err)
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	var got [3]int
	c.eventually(t, 30*time.Second, "metrics answer the reader", func() bool { got[0] = status(reader); return got[0] == 200 })
	got[1], got[2] = status(stranger), status("")
	if got[1] != http.StatusForbidden || got[2] != http.StatusUnauthorized {
		t.Errorf("metrics: reader %d, other ServiceAccount %d, no token %d; want 200, 403, 401", got[0], got[1], got[2])
	}
	c.kubectl(t, "delete", "clusterrolebinding", "prometheus-agentry-metrics")
}

var sampleAgents = []string{"chef", "weather"}

func samples(t *testing.T, c *Cluster) {
	image := c.jsonpath(t, "{.spec.template.spec.containers[0].image}", "-n", ns, "get", "deployment", "agentry-operator")
	testutil.Check(t, c.Apply(t.Context(), ScriptedModel(image)))
	// The README's commands, verbatim but for the key (the scripted model takes any).
	c.sh(t, "kubectl create secret generic openai --from-literal=apiKey=sk-scripted")
	c.sh(t, "kubectl apply -f config/samples/")
	// The samples call OpenAI; here they call the scripted model's Service by its DNS name: the
	// README's one patch of the ModelConfig they share.
	c.sh(t, `kubectl patch modelconfig default --type merge -p '{"spec":{"baseURL":"http://scripted-model.default.svc.cluster.local:8090/v1","model":"gpt-4o-mini"}}'`)
	c.kubectl(t, "rollout", "status", "deployment/scripted-model", "--timeout=120s")
	c.serviceURL(t, "default", "scripted-model") // its Service routes (kube-proxy has its endpoint)
	for _, a := range sampleAgents {
		// The patch rolls the Deployment: wait for the new pods, not the first ones.
		c.eventually(t, 60*time.Second, a+"'s Deployment has the patched config", func() bool {
			return strings.Contains(c.get(`{.data.agent\.yaml}`, "get", "configmap", "agentry-"+a), "scripted-model.default.svc") &&
				c.get("{.status.configHash}", "get", "agent", a) == c.get(`{.spec.template.metadata.annotations.agentry\.dev/config-hash}`, "get", "deployment", "agentry-"+a)
		})
		c.kubectl(t, "rollout", "status", "deployment/agentry-"+a, "--timeout=120s")
		c.settled(t, a)
		c.eventually(t, 120*time.Second, a+" Available", func() bool {
			return c.get(`{.status.conditions[?(@.type=="Available")].status}`, "get", "agent", a) == "True"
		})
		// Ready is False for the documented reason: the samples are not exposed to the internet.
		ready := c.get(`{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Exposed")].reason}`, "get", "agent", a)
		if ready != "False/NotExposed" {
			t.Errorf("%s: Ready/Exposed reason = %s, want False/NotExposed (README)", a, ready)
		}
	}
	out := c.sh(t, "kubectl get modelconfigs,agents")
	if !strings.Contains(out, "chef") || !strings.Contains(out, "gpt-4o-mini") {
		t.Errorf("kubectl get modelconfigs,agents:\n%s", out)
	}
	// The ModelConfig counts the samples' Agents and is Ready: the Secret holds its key.
	if got := c.get(`{.status.agents}/{.status.conditions[?(@.type=="Ready")].status}`, "get", "modelconfig", "default"); got != fmt.Sprintf("%d/True", len(sampleAgents)) {
		t.Errorf("modelconfig default: agents/Ready = %s", got)
	}
	for _, a := range sampleAgents {
		var pods corev1.PodList
		c.object(t, &pods, "get", "pods", "-l", "agentry.dev/agent="+a, "--field-selector=status.phase=Running")
		var pod corev1.Pod
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil {
				pod = p
			}
		}
		if pod.Name == "" {
			t.Fatalf("%s has no running pod", a)
		}
		if !podReady(pod) {
			t.Errorf("%s's pod is not ready: %+v", a, pod.Status.Conditions)
		}
		p := c.containerProcess(t, "default", pod.Name, pod.Spec.Containers[0].Name)
		if p.UID != "65532" || !p.ReadOnlyFS {
			t.Errorf("%s's process %+v, want uid 65532 on a read-only root", a, p)
		}
		ctr := pod.Spec.Containers[0]
		if ctr.ReadinessProbe == nil || ctr.LivenessProbe == nil {
			t.Errorf("%s's container has no probes", a)
		}
	}
	base := c.serviceURL(t, "default", "agentry-chef")
	code, body := call(t, "POST", base+"/api/agents/chef/generate", map[string]any{"messages": []map[string]string{{"role": "user", "content": "What can I cook with rice and eggs?"}}})
	var gen struct {
		Text         string `json:"text"`
		FinishReason string `json:"finishReason"`
	}
	_ = json.Unmarshal(body, &gen)
	if code != 200 || gen.Text == "" {
		t.Fatalf("generate through the Service: %d %s", code, body)
	}
	events := sseEvents(t, base+"/api/agents/chef/ag-ui", map[string]any{"threadId": "t1", "runId": "r1",
		"messages": []map[string]string{{"id": "m1", "role": "user", "content": "I have eggs, spinach and feta. What can I cook?"}},
		"tools":    []any{}, "context": []any{}, "state": map[string]any{}, "forwardedProps": map[string]any{}})
	if len(events) < 3 || events[0] != "RUN_STARTED" || events[len(events)-1] != "RUN_FINISHED" {
		t.Fatalf("AG-UI stream through the Service: %v", events)
	}
}

func podReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// settled waits until the agent's pods are only its current revision's: an old pod keeps
// serving its old config during its pre-stop pause, and a request may reach it until then.
func (c *Cluster) settled(t *testing.T, agent string) {
	t.Helper()
	c.eventually(t, 60*time.Second, agent+"'s old pods gone", func() bool {
		out, err := c.Kubectl(t.Context(), "get", "pods", "-l", "agentry.dev/agent="+agent, "-o", "jsonpath={range .items[*]}{.metadata.name} {.metadata.deletionTimestamp}{\"\\n\"}{end}")
		lines := strings.Fields(strings.TrimSpace(out))
		return err == nil && len(lines) == 1 // one pod, and no deletion timestamp after its name
	})
}

// podNames lists an agent's pods by name.
func (c *Cluster) podNames(agent string) string {
	return c.get("{.items[*].metadata.name}", "get", "pods", "-l", "agentry.dev/agent="+agent, "--field-selector=status.phase=Running")
}

// rolled waits for the agent's Deployment to roll out a new template and for its old pods to be
// gone.
func (c *Cluster) rolled(t *testing.T, agent, oldPods string, change func()) {
	t.Helper()
	dep := "agentry-" + agent
	before := c.jsonpath(t, "{.spec.template.metadata.annotations}", "get", "deployment", dep)
	change()
	c.eventually(t, 60*time.Second, agent+"'s pod template changes", func() bool {
		return c.get("{.spec.template.metadata.annotations}", "get", "deployment", dep) != before
	})
	c.kubectl(t, "rollout", "status", "deployment/"+dep, "--timeout=120s")
	c.eventually(t, 60*time.Second, agent+"'s old pods are gone", func() bool {
		now := c.podNames(agent)
		return now != "" && !strings.Contains(now, oldPods)
	})
}

func changesRoll(t *testing.T, c *Cluster) {
	base := c.serviceURL(t, "default", "agentry-weather")
	// A Tool change: the new description is served.
	c.rolled(t, "weather", c.podNames("weather"), func() {
		c.kubectl(t, "patch", "tool", "weather", "--type", "merge", "-p", `{"spec":{"description":"Weather, as changed by the cluster test."}}`)
	})
	c.eventually(t, 30*time.Second, "the new tool description served", func() bool {
		_, body := call(t, "GET", base+"/api/agents/weather", nil)
		return strings.Contains(string(body), "as changed by the cluster test")
	})
	// A FrontendAction change rolls the agent that references it.
	c.rolled(t, "chef", c.podNames("chef"), func() {
		c.kubectl(t, "patch", "frontendaction", "show-recipe-card", "--type", "merge", "-p", `{"spec":{"description":"Shows a recipe card (changed)."}}`)
	})
	chef := c.serviceURL(t, "default", "agentry-chef")
	c.eventually(t, 30*time.Second, "the new action description served", func() bool {
		_, body := call(t, "GET", chef+"/api/agents/chef", nil)
		return strings.Contains(string(body), "Shows a recipe card (changed).")
	})
	// A Secret change (the model key) rolls both.
	old := c.podNames("chef")
	c.rolled(t, "chef", old, func() {
		c.sh(t, "kubectl create secret generic openai --from-literal=apiKey=sk-rotated --dry-run=client -o yaml | kubectl apply -f -")
	})
	code, body := call(t, "POST", chef+"/api/agents/chef/generate", map[string]any{"messages": "Something with rice"})
	if code != 200 {
		t.Fatalf("generate after the rollout: %d %s", code, body)
	}
}

// agentAsksAgent: the README's A2A sample, the trip planner naming the weather Agent by agentRef.
// The operator renders its call to weather's in-cluster A2A endpoint; the planner's answer,
// asked through its own Service, carries the weather agent's, which weather's pod served.
func agentAsksAgent(t *testing.T, c *Cluster) {
	c.sh(t, "kubectl apply -f config/samples-a2a/")
	// It shares the samples' ModelConfig, already pointed at the scripted model.
	c.eventually(t, 60*time.Second, "trip-planner's tools resolved", func() bool {
		return c.get(`{.status.conditions[?(@.type=="ToolsResolved")].status}`, "get", "agent", "trip-planner") == "True" &&
			c.get("{.status.observedGeneration}", "get", "agent", "trip-planner") == c.get("{.metadata.generation}", "get", "agent", "trip-planner")
	})
	a2a := c.jsonpath(t, "{.status.endpoints.a2aInternal}", "get", "agent", "weather")
	if config := c.jsonpath(t, `{.data.agent\.yaml}`, "get", "configmap", "agentry-trip-planner"); a2a == "" || !strings.Contains(config, "url: "+a2a) {
		t.Fatalf("the planner's config does not call weather at %q:\n%s", a2a, config)
	}
	c.kubectl(t, "rollout", "status", "deployment/agentry-trip-planner", "--timeout=120s")
	c.settled(t, "trip-planner")
	base := c.serviceURL(t, "default", "agentry-trip-planner")
	var text string
	c.eventually(t, 60*time.Second, "the planner's answer carries the weather agent's", func() bool {
		code, body := call(t, "POST", base+"/api/agents/trip-planner/generate", map[string]any{"messages": "Plan a day in Lima"})
		var gen struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(body, &gen)
		text = gen.Text
		return code == 200 && strings.Contains(gen.Text, "The weather agent says: It is about") && strings.Contains(gen.Text, "Lima")
	})
	// weather's own pod counted the A2A call (its metrics, through its Service).
	_, metrics := call(t, "GET", c.serviceURL(t, "default", "agentry-weather")+"/metrics", nil)
	if !regexp.MustCompile(`agentry_http_requests_total\{agent="weather",code="200",route="/a2a/:agentId"\} [1-9]`).Match(metrics) {
		t.Errorf("weather's metrics show no answered A2A request (the planner said %q):\n%s", text, metrics)
	}
	c.sh(t, "kubectl delete -f config/samples-a2a/ --wait=true")
}

func podReplaced(t *testing.T, c *Cluster) {
	old := c.podNames("chef")
	c.kubectl(t, "delete", "pod", strings.Fields(old)[0], "--wait=false")
	c.eventually(t, 90*time.Second, "a new chef pod ready", func() bool {
		var pods corev1.PodList
		out, err := c.Kubectl(t.Context(), "get", "pods", "-l", "agentry.dev/agent=chef", "-o", "json")
		if err != nil || json.Unmarshal([]byte(out), &pods) != nil {
			return false
		}
		for _, p := range pods.Items {
			if !strings.Contains(old, p.Name) && podReady(p) && p.DeletionTimestamp == nil {
				return true
			}
		}
		return false
	})
	// While the old pod's endpoint is withdrawn a request may still reach it (its pre-stop pause
	// keeps it serving); every answer must be the agent's, and one must come within seconds.
	url := c.serviceURL(t, "default", "agentry-chef") + "/api/agents/chef/generate"
	c.eventually(t, 20*time.Second, "generate after the pod was replaced", func() bool {
		res, err := httpClient.Post(url, "application/json", strings.NewReader(`{"messages":"A dessert"}`))
		if err != nil {
			t.Logf("generate after the pod was replaced: %v", err)
			return false
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Logf("generate after the pod was replaced: %d %v %q", res.StatusCode, res.Header, b)
		}
		return res.StatusCode == 200
	})
}

func agentDeletion(t *testing.T, c *Cluster) {
	c.kubectl(t, "delete", "agent", "weather")
	c.eventually(t, 60*time.Second, "weather's objects garbage-collected", func() bool {
		out, _ := c.Kubectl(t.Context(), "get", "deployment,service,configmap,pods", "-l", "agentry.dev/agent=weather", "-o", "name")
		return strings.TrimSpace(out) == ""
	})
	var deps appsv1.DeploymentList
	c.object(t, &deps, "get", "deployments")
	for _, d := range deps.Items {
		if d.Name == "agentry-weather" {
			t.Error("weather's Deployment is still there")
		}
	}
}

func uninstall(t *testing.T, c *Cluster) {
	c.sh(t, "kubectl delete -f config/samples/ --ignore-not-found")
	c.sh(t, "helm uninstall agentry --namespace agentry-system --wait")
	c.eventually(t, 90*time.Second, "the release's pods gone", func() bool {
		out, _ := c.Kubectl(t.Context(), "-n", ns, "get", "pods", "-o", "name")
		return strings.TrimSpace(out) == ""
	})
	// What is left by design: the CRDs (helm never deletes them) and the objects marked
	// helm.sh/resource-policy: keep (the chat's credentials and data claim).
	out, _ := c.Kubectl(t.Context(), "get", "all,configmap,secret,serviceaccount,role,rolebinding,ingress,pvc", "-n", ns, "-l", "app.kubernetes.io/instance=agentry",
		"-o", `jsonpath={range .items[*]}{.kind}/{.metadata.name} {.metadata.annotations.helm\.sh/resource-policy}{"\n"}{end}`)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line != "" && !strings.HasSuffix(line, " keep") {
			t.Errorf("left after helm uninstall: %s", line)
		}
	}
	cluster, _ := c.Kubectl(t.Context(), "get", "clusterrole,clusterrolebinding", "-l", "app.kubernetes.io/instance=agentry", "-o", "name")
	if s := strings.TrimSpace(cluster); s != "" {
		t.Errorf("cluster-scoped objects left after helm uninstall:\n%s", s)
	}
	left, _ := c.Kubectl(t.Context(), "get", "deployments,services", "-n", "default", "-l", "app.kubernetes.io/managed-by=agentry-operator", "-o", "name")
	if s := strings.TrimSpace(left); s != "" {
		t.Errorf("agent objects left:\n%s", s)
	}
}

// localStorage is a default StorageClass with one hostPath volume under the cluster's
// directory: the chart's chat claim binds to it as it would to a cloud disk.
const localStorage = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: chat-data}
spec:
  storageClassName: local
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: %q, type: DirectoryOrCreate}
`

func chatService(t *testing.T, c *Cluster) {
	pv := c.path("pv", "chat-data")
	testutil.Check(t, os.MkdirAll(pv, 0o777))
	_ = os.Chmod(pv, 0o777) // hostPath volumes take no fsGroup: the non-root pod must write
	testutil.Check(t, c.Apply(t.Context(), fmt.Sprintf(localStorage, pv)))
	c.sh(t, "helm upgrade agentry charts/agentry --namespace agentry-system --reuse-values --set chat.enabled=true")
	c.kubectl(t, "-n", ns, "rollout", "status", "deployment/agentry-chat", "--timeout=180s")
	base := c.serviceURL(t, ns, "agentry-chat")
	page := c.webApp(t, base)
	if !strings.Contains(string(page), "<html") || strings.Contains(string(page), "make web") {
		t.Fatalf("the web app at / is not the built app: %.300s", page)
	}
	key := c.secretValue(t, ns, "agentry-chat-credentials", "apiKey")
	api := base + "/chat/v1"
	for _, u := range []string{"alice"} {
		if code, body := call(t, "POST", api+"/users", map[string]string{"uid": u, "name": "Alice"}, "apikey", key); code != 201 {
			t.Fatalf("create %s: %d %s", u, code, body)
		}
	}
	_, body := call(t, "POST", api+"/users/alice/auth_tokens", nil, "apikey", key)
	var tok struct {
		AuthToken string `json:"authToken"`
	}
	if err := json.Unmarshal(body, &tok); err != nil || tok.AuthToken == "" {
		t.Fatalf("token: %s", body)
	}
	// The chef Agent by in-cluster reference: the chat service resolves its Service itself.
	if code, body := call(t, "PUT", api+"/agents/chef", map[string]any{"agentId": "chef", "provider": "ag-ui", "name": "Chef",
		"agentRef": "default/chef", "enabled": true}, "apikey", key); code != 201 && code != 200 {
		t.Fatalf("configure chef by reference: %d %s", code, body)
	}
	askChef(t, c, api, tok.AuthToken, "Something with rice, please")
	c.chatKey, c.chatToken = key, tok.AuthToken
}

// strangerPod runs with the ServiceAccount stranger and a projected token for chef's audience.
const strangerPod = `apiVersion: v1
kind: Pod
metadata: {name: stranger, namespace: agentry-system}
spec:
  serviceAccountName: stranger
  automountServiceAccountToken: false
  containers:
  - name: wait
    image: %s
    imagePullPolicy: Never
    volumeMounts: [{name: token, mountPath: /var/run/secrets/agentry, readOnly: true}]
  volumes:
  - name: token
    projected:
      sources:
      - serviceAccountToken: {audience: %q, expirationSeconds: 600, path: token}
`

// serviceAccountCallers: chef accepts only the chart's chat ServiceAccount's tokens (no header
// Secret anywhere); the chat, configured with auth service-account, gets its answers; a pod
// with another ServiceAccount and a projected token for chef's audience is refused, and so is
// a call with no token.
func serviceAccountCallers(t *testing.T, c *Cluster) {
	c.rolled(t, "chef", c.podNames("chef"), func() {
		c.kubectl(t, "patch", "agent", "chef", "--type", "merge", "-p",
			`{"spec":{"endpoint":{"auth":{"serviceAccounts":[{"namespace":"agentry-system","name":"agentry-chat"}]}}}}`)
	})
	// An old pod answers with its old config until it is gone (its pre-stop pause).
	c.settled(t, "chef")
	chef := c.serviceURL(t, "default", "agentry-chef") + "/api/agents/chef"
	c.eventually(t, 30*time.Second, "chef refuses a call without a token", func() bool {
		code, _ := call(t, "GET", chef, nil)
		return code == http.StatusUnauthorized
	})
	api := c.serviceURL(t, ns, "agentry-chat") + "/chat/v1"
	if code, body := call(t, "PUT", api+"/agents/chef", map[string]any{"agentId": "chef", "provider": "ag-ui", "name": "Chef",
		"agentRef": "default/chef", "enabled": true, "auth": "service-account"}, "apikey", c.chatKey); code != 200 {
		t.Fatalf("chef with auth service-account: %d %s", code, body)
	}
	askChef(t, c, api, c.chatToken, "Something with eggs, please")

	testutil.Check(t, c.Apply(t.Context(), fmt.Sprintf(strangerPod, PauseImage, v1alpha1.AgentAudience("default", "chef"))))
	c.kubectl(t, "-n", ns, "wait", "pod/stranger", "--for=condition=Ready", "--timeout=60s")
	// The token the kubelet projected into the pod, read where the pod sees it.
	p := c.containerProcess(t, ns, "stranger", "wait")
	tok, err := os.ReadFile(fmt.Sprintf("/proc/%d/root/var/run/secrets/agentry/token", p.PID))
	testutil.Check(t, err)
	code, body := call(t, "GET", chef, nil, "Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	if code != http.StatusUnauthorized || !strings.Contains(string(body), "the token's subject may not call this agent") {
		t.Errorf("the stranger's projected token: %d %s, want 401 naming the subject", code, body)
	}
	c.kubectl(t, "-n", ns, "delete", "pod", "stranger", "--wait=false")
}

// askChef sends chef a message as the holder of token and waits for chef's answer after it; a
// failed run fails the test with the chat's sentence.
func askChef(t *testing.T, c *Cluster, api, token, ask string) {
	t.Helper()
	bearer := []string{"Authorization", "Bearer " + token}
	if code, body := call(t, "POST", api+"/messages", map[string]string{"receiver": "chef", "receiverType": "user", "text": ask}, bearer...); code != 201 {
		t.Fatalf("send to chef: %d %s", code, body)
	}
	c.eventually(t, 90*time.Second, "chef's answer to "+strconv.Quote(ask), func() bool {
		_, body := call(t, "GET", api+"/users/chef/messages?limit=50", nil, bearer...)
		var page struct {
			Items []struct{ Sender, Type, Text string } `json:"items"`
		}
		_ = json.Unmarshal(body, &page)
		asked := false
		for _, m := range page.Items {
			switch {
			case m.Text == ask:
				asked = true
			case asked && m.Sender == "chef" && m.Type == "agent_error":
				t.Fatalf("the agent run failed: %s", m.Text)
			case asked && m.Sender == "chef" && m.Type == "assistant" && m.Text != "":
				return true
			}
		}
		return false
	})
}

// webApp waits until the chat service answers its web app at base and returns the page.
func (c *Cluster) webApp(t *testing.T, base string) (page []byte) {
	t.Helper()
	// The pod is ready and kube-proxy has programmed the Service (serviceURL waits for its
	// rule); the app still gets a short while. Each try is a new 5 s connection, and what failed
	// is logged every 5 s so a failure says why.
	var logged time.Time
	quick := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	defer func() {
		if t.Failed() {
			out, _ := exec.Command("iptables", "-w", "-t", "nat", "-S").Output()
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, "agentry-chat") {
					t.Log("nat: " + l)
				}
			}
		}
	}()
	c.eventually(t, 90*time.Second, "the web app at /", func() bool {
		res, err := quick.Get(base + "/")
		if err != nil {
			if time.Since(logged) > 5*time.Second {
				logged = time.Now()
				t.Logf("the web app at %s: %v", base, err)
			}
			return false
		}
		defer res.Body.Close()
		page, _ = io.ReadAll(res.Body)
		if res.StatusCode != 200 && time.Since(logged) > 5*time.Second {
			logged = time.Now()
			t.Logf("the web app at %s: %d %.200s", base, res.StatusCode, page)
		}
		return res.StatusCode == 200
	})
	return page
}

func upgradeKeepsCredentials(t *testing.T, c *Cluster) {
	before := c.jsonpath(t, "{.data}", "-n", ns, "get", "secret", "agentry-chat-credentials")
	c.sh(t, "helm upgrade agentry charts/agentry --namespace agentry-system --reuse-values --set logLevel=debug")
	c.kubectl(t, "-n", ns, "rollout", "status", "deployment/agentry-chat", "--timeout=180s")
	if after := c.jsonpath(t, "{.data}", "-n", ns, "get", "secret", "agentry-chat-credentials"); after != before {
		t.Fatal("helm upgrade changed the chat credentials")
	}
	api := c.serviceURL(t, ns, "agentry-chat") + "/chat/v1"
	c.eventually(t, 60*time.Second, "the old token and API key still work", func() bool {
		code, _ := call(t, "GET", api+"/me", nil, "Authorization", "Bearer "+c.chatToken)
		code2, _ := call(t, "GET", api+"/agents", nil, "apikey", c.chatKey)
		return code == 200 && code2 == 200
	})
}

// secretValue reads one key of a Secret.
func (c *Cluster) secretValue(t *testing.T, namespace, name, key string) string {
	t.Helper()
	enc := c.jsonpath(t, "{.data."+key+"}", "-n", namespace, "get", "secret", name)
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(b) == 0 {
		t.Fatalf("secret %s/%s key %s: %v", namespace, name, key, err)
	}
	return string(b)
}
