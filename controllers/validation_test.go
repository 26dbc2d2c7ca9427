package controllers

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestCRDValidation checks every CEL and schema rule against the real API server: accepted
// and rejected, with the human message.
func TestCRDValidation(t *testing.T) {
	ns := "t-cel"
	agent := func(name, spec string) string {
		return fmt.Sprintf("apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {name: %s}\nspec:\n%s", name, spec)
	}
	tool := func(name, execute string) string {
		return fmt.Sprintf("apiVersion: agentry.dev/v1alpha1\nkind: Tool\nmetadata: {name: %s}\nspec:\n  id: %s\n  description: d\n  inputSchema: {type: object}\n  execute: %s", name, name, execute)
	}
	cases := []struct {
		name, doc, reject string // reject is empty when the object must be accepted
	}{
		{"minimal agent", agent("ok-minimal", "  model: {name: m}"), ""},
		{"agentId pattern ok", agent("ok-id", "  agentId: My_Agent-1\n  model: {name: m}"), ""},
		{"agentId leading dash", agent("bad-id", "  agentId: -agent\n  model: {name: m}"), "spec.agentId"},
		{"agentId too long", agent("bad-id2", "  agentId: "+strings.Repeat("a", 64)+"\n  model: {name: m}"), "spec.agentId"},
		{"agentId with a slash", agent("bad-id3", "  agentId: a/b\n  model: {name: m}"), "spec.agentId"},
		{"maxSteps 0", agent("bad-steps0", "  maxSteps: 0\n  model: {name: m}"), "spec.maxSteps"},
		{"maxSteps 101", agent("bad-steps101", "  maxSteps: 101\n  model: {name: m}"), "spec.maxSteps"},
		{"maxSteps 100", agent("ok-steps", "  maxSteps: 100\n  model: {name: m}"), ""},
		{"duplicate tool keys", agent("bad-keys", "  model: {name: m}\n  tools:\n  - {key: a, toolRef: {name: x}}\n  - {key: a, toolRef: {name: y}}"), "spec.tools"},
		{"file store with 2 replicas", agent("bad-file", "  model: {name: m}\n  memory: {url: 'file:/data/m.db'}\n  runtime: {replicas: 2}"),
			"a file: memory store lives on one pod's disk; use a postgres:// store to run more than one replica"},
		{"file store with 1 replica", agent("ok-file", "  model: {name: m}\n  memory: {url: 'file:/data/m.db'}\n  runtime: {replicas: 1}"), ""},
		{"postgres with 3 replicas", agent("ok-pg", "  model: {name: m}\n  memory: {url: 'postgres://db/agentry'}\n  runtime: {replicas: 3}"), ""},
		{"memory url scheme", agent("bad-mem", "  model: {name: m}\n  memory: {url: 'redis://x'}"), "memory.url must start with memory://, file: or postgres://"},
		{"memory url with a password", agent("bad-mem-pw", "  model: {name: m}\n  memory: {url: 'postgres://agentry:s3cret@db:5432/agentry'}"),
			"memory.url must not contain a password (user:password@host or a password= parameter): it would be stored in a ConfigMap; put the URL in a Secret and use spec.memory.urlSecretRef"},
		{"postgresql url with a password", agent("bad-mem-pw2", "  model: {name: m}\n  memory: {url: 'postgresql://u:p@h/db?sslmode=require'}"), "spec.memory.urlSecretRef"},
		{"memory url with a password parameter", agent("bad-mem-pw3", "  model: {name: m}\n  memory: {url: 'postgres://db/agentry?user=agentry&password=s3cret'}"), "spec.memory.urlSecretRef"},
		{"memory url with a PASSWORD parameter first", agent("bad-mem-pw4", "  model: {name: m}\n  memory: {url: 'postgres://db/agentry?PASSWORD=s3cret'}"), "spec.memory.urlSecretRef"},
		{"memory url with an sslpassword", agent("bad-mem-pw5", "  model: {name: m}\n  memory: {url: 'postgres://db/agentry?sslmode=verify-full&sslpassword=s3cret'}"), "spec.memory.urlSecretRef"},
		{"memory url with a user only", agent("ok-mem-user", "  model: {name: m}\n  memory: {url: 'postgres://agentry@db:5432/agentry?sslmode=require&passfile=/etc/pgpass'}"), ""},
		{"memory url with an IPv6 host and port", agent("ok-mem-v6", "  model: {name: m}\n  memory: {url: 'postgres://[::1]:5432/agentry'}"), ""},
		{"memory url and secret", agent("bad-mem2", "  model: {name: m}\n  memory: {url: 'memory://', urlSecretRef: {name: s, key: k}}"), "memory needs exactly one of url or urlSecretRef"},
		{"unknown provider", agent("bad-provider", "  model: {name: m, provider: anthropic}"), "spec.model.provider"},
		{"temperature not a decimal", agent("bad-temp", "  model: {name: m, temperature: hot}"), "spec.model.temperature"},
		{"platform provider", agent("bad-platform", "  model: {name: m}\n  platform: {provider: slack}"), "spec.platform.provider"},
		{"tool with cel", tool("ok-cel", "{cel: '{}'}"), ""},
		{"tool with both", tool("bad-both", "{cel: '{}', http: {url: 'http://x'}}"), "execute must set exactly one of cel or http"},
		{"tool with neither", tool("bad-neither", "{timeout: 1s}"), "execute must set exactly one of cel or http"},
		{"http with url and service", tool("bad-http", "{http: {url: 'http://x', service: {name: s}}}"), "http needs exactly one of url or service"},
		{"tool id pattern", "apiVersion: agentry.dev/v1alpha1\nkind: Tool\nmetadata: {name: bad-tool-id}\nspec:\n  id: 'has space'\n  description: d\n  inputSchema: {type: object}\n  execute: {cel: '{}'}", "spec.id"},
		{"frontend action name", "apiVersion: agentry.dev/v1alpha1\nkind: FrontendAction\nmetadata: {name: bad-fa}\nspec: {name: 'no spaces allowed', description: d}", "spec.name"},
	}
	for _, tc := range cases {
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

	t.Run("agentId is immutable", func(t *testing.T) {
		a := getAgent(t, ns, "ok-id")
		a.Spec.AgentID = "renamed"
		if err := k8s.Update(ctx, a); err == nil || !strings.Contains(err.Error(), "spec.agentId is immutable: the chat platform routes on it") {
			t.Fatalf("got %v", err)
		}
		a = getAgent(t, ns, "ok-id")
		a.Spec.AgentID = ""
		if err := k8s.Update(ctx, a); err == nil || !strings.Contains(err.Error(), "cannot be added or removed") {
			t.Fatalf("removing: got %v", err)
		}
		m := getAgent(t, ns, "ok-minimal")
		m.Spec.AgentID = "late"
		if err := k8s.Update(ctx, m); err == nil || !strings.Contains(err.Error(), "cannot be added or removed") {
			t.Fatalf("adding: got %v", err)
		}
		m = getAgent(t, ns, "ok-minimal")
		m.Spec.Instructions = "other fields stay editable"
		if err := k8s.Update(ctx, m); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("replicas raised on a file store", func(t *testing.T) {
		a := getAgent(t, ns, "ok-file")
		two := int32(2)
		a.Spec.Runtime.Replicas = &two
		if err := k8s.Update(ctx, a); err == nil || !strings.Contains(err.Error(), "postgres://") {
			t.Fatalf("got %v", err)
		}
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
	expect := func(kind, name string, status metav1.ConditionStatus, reason, msg string) {
		t.Helper()
		eventually(t, kind+" "+name+" Valid="+string(status), func() error {
			var conds []metav1.Condition
			var gen, observed int64
			if kind == "Tool" {
				var o v1alpha1.Tool
				if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &o); err != nil {
					return err
				}
				conds, gen, observed = o.Status.Conditions, o.Generation, o.Status.ObservedGeneration
			} else {
				var o v1alpha1.FrontendAction
				if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &o); err != nil {
					return err
				}
				conds, gen, observed = o.Status.Conditions, o.Generation, o.Status.ObservedGeneration
			}
			for _, c := range conds {
				if c.Type == v1alpha1.ConditionValid && c.Status == status && c.Reason == reason && strings.Contains(c.Message, msg) && observed == gen {
					return nil
				}
			}
			return fmt.Errorf("conditions %+v", conds)
		})
	}
	expect("Tool", "good", metav1.ConditionTrue, v1alpha1.ReasonValid, "")
	expect("Tool", "badcel", metav1.ConditionFalse, v1alpha1.ReasonInvalidCEL, "spec.execute.cel")
	expect("Tool", "badschema", metav1.ConditionFalse, v1alpha1.ReasonInvalidSchema, `"type": "object"`)
	expect("FrontendAction", "goodfa", metav1.ConditionTrue, v1alpha1.ReasonValid, "")
	expect("FrontendAction", "badfa", metav1.ConditionFalse, v1alpha1.ReasonInvalidSchema, "description")

	waitCondition(t, ns, "user", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonToolInvalid)
	// Waited for on its own: the Agent may have been reconciled before the cache held badfa
	// (FrontendActionNotFound) and again once it did.
	a := waitCondition(t, ns, "user", v1alpha1.ConditionFrontendActionsResolved, metav1.ConditionFalse, v1alpha1.ReasonFrontendActionInvalid)
	if c := condition(a, v1alpha1.ConditionFrontendActionsResolved); !strings.Contains(c.Message, `"badfa"`) {
		t.Errorf("frontend actions: %+v", c)
	}
	reg, _, _ := renderedRegistry(t, ns, "user")
	e, _ := reg.Get("user")
	if len(e.Agent.Tools) != 1 || len(e.Agent.FrontendActions) != 1 {
		t.Errorf("only the valid ones are rendered: %v %v", e.Agent.ToolKeys, e.Agent.FrontendActions)
	}
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
	a := waitCondition(t, ns, "fa", v1alpha1.ConditionFrontendActionsResolved, metav1.ConditionFalse, v1alpha1.ReasonFrontendActionNotFound)
	msg := condition(a, v1alpha1.ConditionFrontendActionsResolved).Message
	if !strings.Contains(msg, `FrontendAction "missing" does not exist`) || !strings.Contains(msg, `has the name "weather" of a server tool`) {
		t.Errorf("message: %s", msg)
	}
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
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: elsewhere}
spec:
  model: {name: m}`)
	consistently(t, "the namespaced operator must not touch other namespaces", 2*time.Second, func() error {
		if a := getAgent(t, ns, "elsewhere"); len(a.Status.Conditions) > 0 {
			return fmt.Errorf("status written: %+v", a.Status)
		}
		return nil
	})
	stop, err := startManager(ctx, Options{Render: renderCfg, SkipNameValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	waitCondition(t, ns, "elsewhere", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	deployment(t, ns, "elsewhere")
}
