package controllers

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// crdValidationCases are objects the API server must accept (reject empty) or refuse with the
// message in reject.
var crdValidationCases = []struct{ name, doc, reject string }{
	{"minimal agent", agentDoc("ok-minimal", "  model: {name: m}"), ""},
	{"agentId pattern ok", agentDoc("ok-id", "  agentId: My_Agent-1\n  model: {name: m}"), ""},
	{"agentId leading dash", agentDoc("bad-id", "  agentId: -agent\n  model: {name: m}"), "spec.agentId"},
	{"agentId too long", agentDoc("bad-id2", "  agentId: "+strings.Repeat("a", 64)+"\n  model: {name: m}"), "spec.agentId"},
	{"agentId with a slash", agentDoc("bad-id3", "  agentId: a/b\n  model: {name: m}"), "spec.agentId"},
	{"maxSteps 0", agentDoc("bad-steps0", "  maxSteps: 0\n  model: {name: m}"), "spec.maxSteps"},
	{"maxSteps 101", agentDoc("bad-steps101", "  maxSteps: 101\n  model: {name: m}"), "spec.maxSteps"},
	{"maxSteps 100", agentDoc("ok-steps", "  maxSteps: 100\n  model: {name: m}"), ""},
	{"duplicate tool keys", agentDoc("bad-keys", "  model: {name: m}\n  tools:\n  - {key: a, toolRef: {name: x}}\n  - {key: a, toolRef: {name: y}}"), "spec.tools"},
	{"file store with 2 replicas", agentDoc("bad-file", "  model: {name: m}\n  memory: {url: 'file:/data/m.db'}\n  runtime: {replicas: 2}"),
		"a file: memory store lives on one pod's disk; use a postgres:// store to run more than one replica"},
	{"file store with 1 replica", agentDoc("ok-file", "  model: {name: m}\n  memory: {url: 'file:/data/m.db'}\n  runtime: {replicas: 1}"), ""},
	{"postgres with 3 replicas", agentDoc("ok-pg", "  model: {name: m}\n  memory: {url: 'postgres://db/agentry'}\n  runtime: {replicas: 3}"), ""},
	{"memory url scheme", agentDoc("bad-mem", "  model: {name: m}\n  memory: {url: 'redis://x'}"), "memory.url must start with memory://, file: or postgres://"},
	{"memory url with a password", agentDoc("bad-mem-pw", "  model: {name: m}\n  memory: {url: 'postgres://agentry:s3cret@db:5432/agentry'}"),
		"memory.url must not contain a password (user:password@host or a password= parameter): it would be stored in a ConfigMap; put the URL in a Secret and use spec.memory.urlSecretRef"},
	{"postgresql url with a password", agentDoc("bad-mem-pw2", "  model: {name: m}\n  memory: {url: 'postgresql://u:p@h/db?sslmode=require'}"), "spec.memory.urlSecretRef"},
	{"memory url with a password parameter", agentDoc("bad-mem-pw3", "  model: {name: m}\n  memory: {url: 'postgres://db/agentry?user=agentry&password=s3cret'}"), "spec.memory.urlSecretRef"},
	{"memory url with a PASSWORD parameter first", agentDoc("bad-mem-pw4", "  model: {name: m}\n  memory: {url: 'postgres://db/agentry?PASSWORD=s3cret'}"), "spec.memory.urlSecretRef"},
	{"memory url with an sslpassword", agentDoc("bad-mem-pw5", "  model: {name: m}\n  memory: {url: 'postgres://db/agentry?sslmode=verify-full&sslpassword=s3cret'}"), "spec.memory.urlSecretRef"},
	{"memory url with a user only", agentDoc("ok-mem-user", "  model: {name: m}\n  memory: {url: 'postgres://agentry@db:5432/agentry?sslmode=require&passfile=/etc/pgpass'}"), ""},
	{"memory url with an IPv6 host and port", agentDoc("ok-mem-v6", "  model: {name: m}\n  memory: {url: 'postgres://[::1]:5432/agentry'}"), ""},
	{"memory url and secret", agentDoc("bad-mem2", "  model: {name: m}\n  memory: {url: 'memory://', urlSecretRef: {name: s, key: k}}"), "memory needs exactly one of url or urlSecretRef"},
	{"unknown provider", agentDoc("bad-provider", "  model: {name: m, provider: anthropic}"), "spec.model.provider"},
	{"temperature not a decimal", agentDoc("bad-temp", "  model: {name: m, temperature: hot}"), "spec.model.temperature"},
	{"platform provider", agentDoc("bad-platform", "  model: {name: m}\n  platform: {provider: slack}"), "spec.platform.provider"},
	{"tool with cel", toolDoc("ok-cel", "{cel: '{}'}"), ""},
	{"tool with both", toolDoc("bad-both", "{cel: '{}', http: {url: 'http://x'}}"), "execute must set exactly one of cel, http or a2a"},
	{"tool with neither", toolDoc("bad-neither", "{timeout: 1s}"), "execute must set exactly one of cel, http or a2a"},
	{"http with url and service", toolDoc("bad-http", "{http: {url: 'http://x', service: {name: s}}}"), "http needs exactly one of url or service"},
	{"tool id pattern", "apiVersion: agentry.dev/v1alpha1\nkind: Tool\nmetadata: {name: bad-tool-id}\nspec:\n  id: 'has space'\n  description: d\n  inputSchema: {type: object}\n  execute: {cel: '{}'}", "spec.id"},
	{"frontend action name", "apiVersion: agentry.dev/v1alpha1\nkind: FrontendAction\nmetadata: {name: bad-fa}\nspec: {name: 'no spaces allowed', description: d}", "spec.name"},
	// A tool-map entry: a Tool or an MCP server's tools, with approval settings.
	{"tool entry with both refs", agentDoc("bad-both-refs", "  model: {name: m}\n  tools:\n  - {key: x, toolRef: {name: t}, mcpServerRef: {name: m}}"), "exactly one of toolRef, mcpServerRef, agentRef or remoteAgentRef"},
	{"tool entry asking two agents", agentDoc("bad-two-asks", "  model: {name: m}\n  tools:\n  - {key: x, agentRef: {name: a}, remoteAgentRef: {name: r}}"), "exactly one of toolRef, mcpServerRef, agentRef or remoteAgentRef"},
	{"tool entry with no ref", agentDoc("bad-no-ref", "  model: {name: m}\n  tools:\n  - {key: x}"), "exactly one of toolRef, mcpServerRef, agentRef or remoteAgentRef"},
	{"timeout on a Tool entry", agentDoc("bad-timeout", "  model: {name: m}\n  tools:\n  - {key: x, toolRef: {name: t}, timeout: 5s}"), "timeout belongs to agentRef and remoteAgentRef entries"},
	{"agentRef to a bad namespace", agentDoc("bad-ref-ns", "  model: {name: m}\n  tools:\n  - {key: x, agentRef: {name: a, namespace: Not_A_NS}}"), "spec.tools[0].agentRef.namespace"},
	{"remote agent without url", "apiVersion: agentry.dev/v1alpha1\nkind: RemoteAgent\nmetadata: {name: bad-remote}\nspec:\n  url: ftp://x\n", "spec.url"},
	{"toolName on a Tool entry", agentDoc("bad-toolname", "  model: {name: m}\n  tools:\n  - {key: x, toolRef: {name: t}, toolName: y}"), "toolName and prefix belong to mcpServerRef entries"},
	{"approvalTimeout without requireApproval", agentDoc("bad-approval", "  model: {name: m}\n  tools:\n  - {key: x, toolRef: {name: t}, approvalTimeout: 1m}"), "approvalTimeout needs requireApproval: true"},
	{"approvalTimeout of 200h", agentDoc("bad-approval2", "  model: {name: m}\n  tools:\n  - {key: x, toolRef: {name: t}, requireApproval: true, approvalTimeout: 200h}"),
		"approvalTimeout must be more than 0s and at most 168h"},
	{"model by reference", agentDoc("ok-configref", "  model: {configRef: {name: shared}, temperature: \"0.5\", name: other}"), ""},
	{"model by reference with a key", agentDoc("bad-configref-key", "  model: {configRef: {name: shared}, apiKeySecretRef: {name: s, key: k}}"), "come from the ModelConfig"},
	{"model by reference with azure", agentDoc("bad-configref-azure", "  model: {configRef: {name: shared}, provider: azure-openai, azure: {endpoint: \"https://r.openai.azure.com\", apiVersion: 2024-10-21}}"), "come from the ModelConfig"},
	{"model without name or reference", agentDoc("bad-noname", "  model: {temperature: \"0.5\"}"), "needs a name (the model id), or a configRef"},
	{"model config", modelConfigDoc("ok-mc", "  model: m\n  baseURL: http://vllm.models:8000/v1\n  apiKeySecretRef: {name: k, key: apiKey}\n  maxRetries: 3"), ""},
	{"model config without model", modelConfigDoc("bad-mc-model", "  baseURL: http://vllm.models:8000/v1"), "spec.model"},
	{"model config with a bad url", modelConfigDoc("bad-mc-url", "  model: m\n  baseURL: ftp://x"), "spec.baseURL"},
	{"azure model config without endpoint", modelConfigDoc("bad-mc-azure", "  model: m\n  provider: azure-openai"), "provider azure-openai needs spec.azure.endpoint"},
	{"azure settings on openai", modelConfigDoc("bad-mc-azure2", "  model: m\n  azure: {endpoint: \"https://r.openai.azure.com\", apiVersion: 2024-10-21}"), "spec.azure applies to provider azure-openai only"},
	{"approval entry", agentDoc("ok-approval", "  model: {name: m}\n  tools:\n  - {key: x, toolRef: {name: t}, requireApproval: true, approvalTimeout: 30m}"), ""},
}

// TestCRDValidation checks every CEL and schema rule against the real API server: accepted
// and rejected, with the human message.
func TestCRDValidation(t *testing.T) {
	ns := "t-cel"
	for _, tc := range crdValidationCases {
		t.Run(tc.name, func(t *testing.T) {
			obj := decode(t, tc.doc)
			obj.SetNamespace(ns)
			err := k8s.Create(ctx, obj)
			if tc.reject == "" {
				if err != nil {
					t.Fatalf("must be accepted: %v", err)
				}
				return
			}
			if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.reject) {
				t.Fatalf("must be rejected with %q, got %v", tc.reject, err)
			}
		})
	}
	// The operator writes these Agents' status meanwhile: updates retry on conflicts.
	refused := func(t *testing.T, name, want string, change func(*v1alpha1.Agent)) {
		t.Helper()
		if err := tryModify(&v1alpha1.Agent{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, false, change); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: got %v, want %q", name, err, want)
		}
	}
	t.Run("agentId is immutable", func(t *testing.T) {
		refused(t, "ok-id", "spec.agentId is immutable: the chat platform routes on it", func(a *v1alpha1.Agent) { a.Spec.AgentID = "renamed" })
		refused(t, "ok-id", "cannot be added or removed", func(a *v1alpha1.Agent) { a.Spec.AgentID = "" })          // removing
		refused(t, "ok-minimal", "cannot be added or removed", func(a *v1alpha1.Agent) { a.Spec.AgentID = "late" }) // adding
		updateAgent(t, ns, "ok-minimal", func(a *v1alpha1.Agent) { a.Spec.Instructions = "other fields stay editable" })
	})
	t.Run("replicas raised on a file store", func(t *testing.T) {
		refused(t, "ok-file", "postgres://", func(a *v1alpha1.Agent) { a.Spec.Runtime.Replicas = ptr.To(int32(2)) })
	})
}

func TestToolAndFrontendActionValidity(t *testing.T) {
	ns := "t-valid"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: good}
spec: {id: good, description: d, inputSchema: {type: object}, execute: {cel: '{"a": 1}'}}
---
apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: badcel}
spec: {id: badcel, description: d, inputSchema: {type: object}, execute: {cel: '{"a": input.'}}
---
apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: badschema}
spec: {id: badschema, description: d, inputSchema: {type: string}, execute: {cel: '{}'}}
---
apiVersion: agentry.dev/v1alpha1
kind: FrontendAction
metadata: {name: goodfa}
spec:
  name: goodfa
  description: d
  parameters: {type: object, required: [x], properties: {x: {type: string, description: an x}}}
---
apiVersion: agentry.dev/v1alpha1
kind: FrontendAction
metadata: {name: badfa}
spec:
  name: badfa
  description: d
  parameters: {type: object, required: [why], properties: {x: {type: string}}}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: user}
spec:
  model: {name: m}
  tools: [{key: badcel, toolRef: {name: badcel}}, {key: good, toolRef: {name: good}}]
  frontendActions: [{name: badfa}, {name: goodfa}]`)
	waitValid(t, ns, "good", &v1alpha1.Tool{}, metav1.ConditionTrue, v1alpha1.ReasonValid, "")
	waitValid(t, ns, "badcel", &v1alpha1.Tool{}, metav1.ConditionFalse, v1alpha1.ReasonInvalidCEL, "spec.execute.cel")
	waitValid(t, ns, "badschema", &v1alpha1.Tool{}, metav1.ConditionFalse, v1alpha1.ReasonInvalidSchema, `"type": "object"`)
	waitValid(t, ns, "goodfa", &v1alpha1.FrontendAction{}, metav1.ConditionTrue, v1alpha1.ReasonValid, "")
	waitValid(t, ns, "badfa", &v1alpha1.FrontendAction{}, metav1.ConditionFalse, v1alpha1.ReasonInvalidSchema, "description")

	waitCondition(t, ns, "user", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonToolInvalid)
	// Waited for on its own: the Agent may have been reconciled before the cache held badfa
	// (FrontendActionNotFound) and again once it did.
	waitCondition(t, ns, "user", v1alpha1.ConditionFrontendActionsResolved, metav1.ConditionFalse, v1alpha1.ReasonFrontendActionInvalid, `"badfa"`)
	// The valid ones are rendered once the cache holds them too (good and goodfa).
	eventually(t, "only the valid ones to be rendered", func() error {
		reg, _, _ := renderedRegistry(t, ns, "user")
		if e, _ := reg.Get("user"); len(e.Agent.Tools) != 1 || len(e.Agent.FrontendActions) != 1 {
			return fmt.Errorf("tools %v, actions %v", e.Agent.ToolKeys, e.Agent.FrontendActions)
		}
		return nil
	})
}

// waitValid waits until the Tool or FrontendAction ns/name, read into obj, has the Valid status
// and reason for its generation, and a message holding msg.
func waitValid(t *testing.T, ns, name string, obj conditioned, status metav1.ConditionStatus, reason, msg string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%T %s Valid=%s", obj, name, status), func() error {
		if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, obj); err != nil {
			return err
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return err
		}
		observed, _, _ := unstructured.NestedInt64(u, "status", "observedGeneration")
		c := meta.FindStatusCondition(obj.GetConditions(), v1alpha1.ConditionValid)
		if c == nil || c.Status != status || c.Reason != reason || !strings.Contains(c.Message, msg) || observed != obj.GetGeneration() {
			return fmt.Errorf("conditions %+v", obj.GetConditions())
		}
		return nil
	})
}

func TestFrontendActionProblems(t *testing.T) {
	ns := "t-fa"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Tool
metadata: {name: weather}
spec: {id: weather, description: d, inputSchema: {type: object}, execute: {cel: '{}'}}
---
apiVersion: agentry.dev/v1alpha1
kind: FrontendAction
metadata: {name: clash}
spec: {name: weather, description: same name as the tool}
---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: fa}
spec:
  model: {name: m}
  tools: [{key: weather, toolRef: {name: weather}}]
  frontendActions: [{name: missing}, {name: clash}]`)
	// Both problems, once the cache holds the Tool and the clashing action.
	waitCondition(t, ns, "fa", v1alpha1.ConditionFrontendActionsResolved, metav1.ConditionFalse, v1alpha1.ReasonFrontendActionNotFound,
		`FrontendAction "missing" does not exist`, `has the name "weather" of a server tool`)
	// Creating the missing action re-reconciles the Agent through the index; only the clash remains.
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: FrontendAction
metadata: {name: missing}
spec: {name: confetti, description: party}`)
	waitCondition(t, ns, "fa", v1alpha1.ConditionFrontendActionsResolved, metav1.ConditionFalse, v1alpha1.ReasonNameConflict)
}

// TestKubectlGetAgents runs the real kubectl against the test API server.
func TestKubectlGetAgents(t *testing.T) {
	ns := "t-kubectl"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: listed}
spec:
  agentId: listed-id
  model: {name: gpt-4o-mini}
  endpoint: {publicURL: "https://chat.example.com", allowUnauthenticated: true}`)
	waitCondition(t, ns, "listed", v1alpha1.ConditionExposed, metav1.ConditionTrue, v1alpha1.ReasonPublicURLSet)
	kubeconfig := writeKubeconfig(t)
	for _, resource := range []string{"agents", "ag"} {
		out, err := exec.Command("kubectl", "--kubeconfig", kubeconfig, "get", resource, "-n", ns).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl: %v\n%s", err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		header := strings.Fields(lines[0])
		if strings.Join(header, " ") != "NAME AGENT ID MODEL READY URL AGE" {
			t.Errorf("columns: %q", lines[0])
		}
		row := strings.Fields(lines[1])
		if len(row) < 6 || row[0] != "listed" || row[1] != "listed-id" || row[2] != "gpt-4o-mini" || row[3] != "False" ||
			row[4] != "https://chat.example.com/api/agents/listed-id/ag-ui" {
			t.Errorf("row: %q", lines[1])
		}
	}
	out, err := exec.Command("kubectl", "--kubeconfig", kubeconfig, "get", "tools,frontendactions", "-A").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "TOOL ID") {
		t.Errorf("kubectl get tools: %v\n%s", err, out)
	}
}

func writeKubeconfig(t *testing.T) string {
	t.Helper()
	return testutil.Kubeconfig(t, testEnv, envtest.User{Name: "kubectl-admin", Groups: []string{"system:masters"}})
}

// TestNamespaceScope: the suite's operator watches only its namespace pool; an Agent elsewhere
// is left alone until a cluster-wide operator runs.
func TestNamespaceScope(t *testing.T) {
	ns := "t-outside"
	testutil.NoError(t, k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	create(t, ns, agentDoc("elsewhere", "  model: {name: m}"))
	consistently(t, "the namespaced operator must not touch other namespaces", 2*time.Second, func() error {
		if a := getAgent(t, ns, "elsewhere"); len(a.Status.Conditions) > 0 {
			return fmt.Errorf("status written: %+v", a.Status)
		}
		return nil
	})
	stop, err := startManagerWith(ctx, cfg, Options{Render: renderCfg, SkipNameValidation: true})
	testutil.NoError(t, err)
	defer stop()
	waitCondition(t, ns, "elsewhere", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	deployment(t, ns, "elsewhere")
}
