package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/devkit/testutil/mcptest"
	mdecode "github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
	"github.com/agentry-dev/agentry/runtime/registry"
)

func mcpServerDoc(name, url, extra string) string {
	return fmt.Sprintf("apiVersion: agentry.dev/v1alpha1\nkind: MCPServer\nmetadata: {name: %s}\nspec:\n  url: %q\n%s", name, url, extra)
}

func getMCPServer(t *testing.T, ns, name string) *v1alpha1.MCPServer {
	return get(t, ns, name, &v1alpha1.MCPServer{})
}

// waitMCPReady waits for the MCPServer's Ready condition to have the status and reason for
// its generation.
func waitMCPReady(t *testing.T, ns, name string, status metav1.ConditionStatus, reason string) *v1alpha1.MCPServer {
	t.Helper()
	var m *v1alpha1.MCPServer
	eventually(t, fmt.Sprintf("MCPServer %s/%s Ready=%s (%s)", ns, name, status, reason), func() error {
		m = getMCPServer(t, ns, name)
		if c := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.ConditionReady); c == nil || c.Status != status || c.Reason != reason || c.ObservedGeneration != m.Generation {
			return fmt.Errorf("Ready is %+v", c)
		}
		return nil
	})
	return m
}

func mcpToolNames(m *v1alpha1.MCPServer) string {
	var n []string
	for _, t := range m.Status.Tools {
		n = append(n, t.Name)
	}
	return strings.Join(n, ",")
}

// A server written with the Go SDK, over both transports: its tools (name, description, input
// schema) in status, Ready with reason Discovered, an allow-list applied; an Agent using all of
// its tools with a prefix and one by name gets them in its rendered config, which the runtime
// loads (strictly, as the pods do) into exactly those tools.
func TestMCPServerDiscoveryAndAgents(t *testing.T) {
	ns := "t-mcp"
	srv := mcptest.Start(t, mcptest.Options{})
	create(t, ns, mcpServerDoc("everything", srv.URL, "")+"\n---\n"+
		mcpServerDoc("legacy", srv.SSEURL, "  transport: sse\n  tools: [echo, add, missing]\n"))
	m := waitMCPReady(t, ns, "everything", metav1.ConditionTrue, v1alpha1.ReasonDiscovered)
	if got := mcpToolNames(m); got != "add,echo,fail,slow" || m.Status.ToolCount != 4 || m.Status.LastDiscoveryTime == nil {
		t.Fatalf("status: tools %s, count %d, last %v", got, m.Status.ToolCount, m.Status.LastDiscoveryTime)
	}
	var schema map[string]any
	if err := json.Unmarshal(m.Status.Tools[0].InputSchema.Raw, &schema); err != nil || schema["type"] != "object" {
		t.Fatalf("add's input schema: %s", m.Status.Tools[0].InputSchema.Raw)
	}
	if m.Spec.Transport != v1alpha1.MCPTransportStreamableHTTP {
		t.Errorf("transport default %q", m.Spec.Transport)
	}
	legacy := waitMCPReady(t, ns, "legacy", metav1.ConditionTrue, v1alpha1.ReasonDiscovered)
	ready := meta.FindStatusCondition(legacy.Status.Conditions, v1alpha1.ConditionReady)
	if got := mcpToolNames(legacy); got != "add,echo" || !strings.Contains(ready.Message, "missing") {
		t.Fatalf("allow-list: tools %s, message %q", got, ready.Message)
	}

	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: mcp-agent}
spec:
  model: {name: gpt-4o-mini}
  tools:
  - {key: everything, mcpServerRef: {name: everything}, prefix: ev_}
  - {key: add, mcpServerRef: {name: legacy}, toolName: add}
  - {key: wrong-key, mcpServerRef: {name: legacy}, toolName: echo}
  - {key: nowhere, mcpServerRef: {name: nowhere}}`)
	a := waitCondition(t, ns, "mcp-agent", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonToolIDMismatch)
	msg := condition(a, v1alpha1.ConditionToolsResolved).Message
	for _, want := range []string{`"wrong-key" differs from the name "echo"`, `MCPServer "nowhere", which does not exist`, "ev_add, ev_echo, ev_fail, ev_slow, add"} {
		if !strings.Contains(msg, want) {
			t.Errorf("ToolsResolved message %q lacks %q", msg, want)
		}
	}

	reg, warnings, data := renderedRegistry(t, ns, "mcp-agent")
	defer reg.Close()
	if !strings.Contains(data, "kind: MCPServer") || strings.Contains(data, "nowhere") || strings.Contains(data, "wrong-key") {
		t.Fatalf("rendered config:\n%s", data)
	}
	e, _ := reg.Get("mcp-agent")
	if got := strings.Join(e.Agent.ToolKeys, ","); got != "ev_add,ev_echo,ev_fail,ev_slow,add" {
		t.Fatalf("the runtime offers %s (warnings %v)", got, warnings)
	}
	// The pods decode it strictly (no schema run), as agentry serve --prevalidated does.
	set := &mdecode.Set{}
	if err := mdecode.NewLoader(mdecode.Prevalidated{}).Decode(ctx, "configmap", []byte(data), set); err != nil || len(set.MCPServers) != 2 {
		t.Fatalf("prevalidated decode: %v (%d servers)", err, len(set.MCPServers))
	}
	reg2, _, err := registry.Build(ctx, set, registry.Options{})
	testutil.NoError(t, err)
	defer reg2.Close()
	if e, _ := reg2.Get("mcp-agent"); len(e.Agent.ToolKeys) != 5 {
		t.Fatalf("prevalidated registry offers %v", e.Agent.ToolKeys)
	}
}

// A server that needs a bearer token: Unauthorized without it, Discovered once the Secret
// exists (the Secret's watch rechecks); the token never appears in the MCPServer, the Agent's
// ConfigMap or any event, and reaches the pods as a mounted Secret.
func TestMCPServerWithHeadersSecret(t *testing.T) {
	ns := "t-mcp-auth"
	const token = "mcp-token-3f9a7c"
	srv := mcptest.Start(t, mcptest.Options{Token: token})
	create(t, ns, mcpServerDoc("private", srv.URL, "  headersSecretRef: {name: private-mcp}\n"))
	m := waitMCPReady(t, ns, "private", metav1.ConditionFalse, v1alpha1.ReasonSecretNotFound)
	secret(t, ns, "private-mcp", map[string]string{"Authorization": "Bearer wrong"})
	m = waitMCPReady(t, ns, "private", metav1.ConditionFalse, v1alpha1.ReasonUnauthorized)
	if c := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.ConditionReady); !strings.Contains(c.Message, "401") {
		t.Errorf("message %q", c.Message)
	}
	modify(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "private-mcp"}}, false, func(s *corev1.Secret) {
		s.Data = map[string][]byte{"Authorization": []byte("Bearer " + token)}
	})
	waitMCPReady(t, ns, "private", metav1.ConditionTrue, v1alpha1.ReasonDiscovered)

	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: private-user}
spec:
  model: {name: gpt-4o-mini}
  tools:
  - {key: echo, mcpServerRef: {name: private}, toolName: echo}`)
	waitCondition(t, ns, "private-user", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	d := deployment(t, ns, "private-user")
	if !slices.ContainsFunc(d.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == "private-mcp" }) {
		t.Errorf("the headers Secret is not mounted: %+v", d.Spec.Template.Spec.Volumes)
	}
	cm := child(t, ns, "private-user", &corev1.ConfigMap{})
	var events eventsv1.EventList
	testutil.NoError(t, k8s.List(ctx, &events, client.InNamespace(ns)))
	for what, text := range map[string]string{"MCPServer": toYAML(t, getMCPServer(t, ns, "private")), "ConfigMap": toYAML(t, cm), "Deployment": toYAML(t, d), "events": toYAML(t, events)} {
		if strings.Contains(text, token) || strings.Contains(text, "Bearer wrong") {
			t.Errorf("%s carries a header value", what)
		}
	}
}

// Servers that hang (each within a 20 s timeout) delay neither another MCPServer's discovery
// nor any Agent: both are done while every hanging server still says Discovering. One with a
// short timeout says Timeout.
func TestHangingMCPServersDelayNothing(t *testing.T) {
	ns := "t-mcp-hang"
	const hanging = 12
	var docs []string
	for i := 0; i < hanging; i++ {
		docs = append(docs, mcpServerDoc(fmt.Sprintf("hangs-%d", i), mcptest.Hanging(t), "  timeout: 20s\n"))
	}
	create(t, ns, strings.Join(docs, "\n---\n"))
	stillDiscovering := func(what string) {
		t.Helper()
		for i := 0; i < hanging; i++ {
			m := getMCPServer(t, ns, fmt.Sprintf("hangs-%d", i))
			if c := meta.FindStatusCondition(m.Status.Conditions, v1alpha1.ConditionReady); c == nil || c.Status != metav1.ConditionUnknown || c.Reason != v1alpha1.ReasonDiscovering {
				t.Errorf("%s waited for a hanging server: %s's Ready is %+v", what, m.Name, c)
			}
		}
	}
	// The hanging servers' discoveries are under way.
	for i := 0; i < hanging; i++ {
		waitMCPReady(t, ns, fmt.Sprintf("hangs-%d", i), metav1.ConditionUnknown, v1alpha1.ReasonDiscovering)
	}

	srv := mcptest.Start(t, mcptest.Options{})
	create(t, ns, mcpServerDoc("quick-timeout", mcptest.Hanging(t), "  timeout: 1s\n")+"\n---\n"+mcpServerDoc("fine", srv.URL, "")+"\n---\n"+`apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: unaffected}
spec:
  model: {name: gpt-4o-mini}`)
	waitCondition(t, ns, "unaffected", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	stillDiscovering("an Agent")
	// A server beside them is discovered at once; one that hangs ends at its own timeout.
	waitMCPReady(t, ns, "fine", metav1.ConditionTrue, v1alpha1.ReasonDiscovered)
	stillDiscovering("a responsive server")
	waitMCPReady(t, ns, "quick-timeout", metav1.ConditionFalse, v1alpha1.ReasonTimeout)
	for i := 0; i < hanging; i++ {
		_ = k8s.Delete(ctx, &v1alpha1.MCPServer{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("hangs-%d", i)}})
	}
}

// The server's tool list changes: the status follows at the next discovery, and so do the
// Agents' configs (their pods roll); a tool an entry names that the server no longer offers is
// reported on the Agent.
func TestMCPToolListChanges(t *testing.T) {
	ns := "t-mcp-change"
	srv := mcptest.Start(t, mcptest.Options{})
	create(t, ns, mcpServerDoc("changing", srv.URL, "")+"\n---\n"+`apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: follower}
spec:
  model: {name: gpt-4o-mini}
  tools:
  - {key: all, mcpServerRef: {name: changing}}
  - {key: echo, mcpServerRef: {name: changing}, toolName: echo}`)
	waitMCPReady(t, ns, "changing", metav1.ConditionTrue, v1alpha1.ReasonDiscovered)
	a := waitCondition(t, ns, "follower", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonDuplicateToolName)
	firstHash := a.Status.ConfigHash

	mcp.AddTool(srv.MCP, &mcp.Tool{Name: "weather", Description: "Tells the weather."},
		func(context.Context, *mcp.CallToolRequest, mcptest.EchoInput) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil, nil
		})
	srv.MCP.RemoveTools("echo")
	eventually(t, "the status follows the server's tools", func() error {
		if got := mcpToolNames(getMCPServer(t, ns, "changing")); got != "add,fail,slow,weather" {
			return fmt.Errorf("tools %s", got)
		}
		return nil
	})
	a = waitCondition(t, ns, "follower", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonMCPToolNotFound)
	if msg := condition(a, v1alpha1.ConditionToolsResolved).Message; !strings.Contains(msg, `does not offer tool "echo"`) {
		t.Errorf("message %q", msg)
	}
	eventually(t, "the pods follow", func() error {
		a, d, config := getAgent(t, ns, "follower"), deployment(t, ns, "follower"), child(t, ns, "follower", &corev1.ConfigMap{}).Data[render.ConfigKey]
		if a.Status.ConfigHash == firstHash || !strings.Contains(config, "weather") || strings.Contains(config, "name: echo") {
			return fmt.Errorf("config hash %s, config:\n%s", a.Status.ConfigHash, config)
		}
		if h := d.Spec.Template.Annotations[render.AnnotationConfigHash]; h != a.Status.ConfigHash {
			return fmt.Errorf("the pod template does not carry the new hash: %v", d.Spec.Template.Annotations)
		}
		return nil
	})

	// An outage keeps the last tools, and the Agent says so.
	srv.Stop()
	m := waitMCPReady(t, ns, "changing", metav1.ConditionFalse, v1alpha1.ReasonUnreachable)
	if mcpToolNames(m) != "add,fail,slow,weather" {
		t.Fatalf("tools after an outage: %s", mcpToolNames(m))
	}
	a = waitCondition(t, ns, "follower", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonMCPServerNotReady)
	if msg := condition(a, v1alpha1.ConditionToolsResolved).Message; !strings.Contains(msg, `MCPServer "changing" is not ready (Unreachable`) || !strings.Contains(msg, "are still offered") {
		t.Errorf("message %q", msg)
	}
}

// The MCP project's reference server (@modelcontextprotocol/server-everything from the npm
// registry), over streamable HTTP and over SSE: its tools, with their descriptions and input
// schemas, in status.
func TestMCPReferenceServerDiscovery(t *testing.T) {
	ns := "t-mcp-ref"
	create(t, ns, mcpServerDoc("everything", testutil.StartEverything(t, "streamableHttp"), "")+"\n---\n"+
		mcpServerDoc("everything-sse", testutil.StartEverything(t, "sse"), "  transport: sse\n"))
	for _, name := range []string{"everything", "everything-sse"} {
		m := waitMCPReady(t, ns, name, metav1.ConditionTrue, v1alpha1.ReasonDiscovered)
		var sum *v1alpha1.MCPToolInfo
		for i := range m.Status.Tools {
			if m.Status.Tools[i].Name == "get-sum" {
				sum = &m.Status.Tools[i]
			}
		}
		if sum == nil || m.Status.ToolCount < 5 || !strings.Contains(sum.Description, "sum of two numbers") {
			t.Fatalf("%s: tools %s, get-sum %+v", name, mcpToolNames(m), sum)
		}
		var schema struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(sum.InputSchema.Raw, &schema); err != nil || schema.Properties["a"].Type != "number" || len(schema.Required) != 2 {
			t.Fatalf("%s: get-sum's input schema %s", name, sum.InputSchema.Raw)
		}
	}
}
