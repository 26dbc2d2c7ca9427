package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/samplemcp"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// mcpEndToEnd: an MCPServer applied with kubectl (the kitchen sample server, with a headers
// Secret) is discovered by the operator running as the chart's ServiceAccount; chef gets its
// tools, the Deployment rolls, and the runtime started from the rendered Deployment calls the
// tool. The header value never reaches the ConfigMap, the status, an event or a log.
func mcpEndToEnd(t *testing.T, c *cluster, routes, headers map[string]string) {
	const token = "Bearer e2e-mcp-header-value"
	srv, url, err := samplemcp.Serve("127.0.0.1:0", "e2e")
	testutil.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	c.sh(t, "kubectl create secret generic kitchen-mcp-auth --from-literal=Authorization='"+token+"'")
	c.sh(t, fmt.Sprintf(`kubectl apply -f - <<'EOF'
apiVersion: agentry.dev/v1alpha1
kind: MCPServer
metadata: {name: kitchen}
spec:
  url: %s
  headersSecretRef: {name: kitchen-mcp-auth}
EOF`, url))
	waitFor(t, "the kitchen MCPServer to be discovered", 30*time.Second, func() error {
		if out := c.sh(t, "kubectl get mcp kitchen"); !strings.Contains(out, "Discovered") || !strings.Contains(out, "True") {
			return fmt.Errorf("%s", out)
		}
		return nil
	})
	if out := c.sh(t, "kubectl get mcpserver kitchen -o jsonpath='{.status.tools[*].name}'"); out != "convert-units" {
		t.Fatalf("status tools: %q", out)
	}
	oldHash := podTemplateHash(t, c, "chef")
	c.sh(t, `kubectl patch agent chef --type json -p '[{"op":"add","path":"/spec/tools/-","value":{"key":"kitchen","mcpServerRef":{"name":"kitchen"}}}]'`)
	waitFor(t, "chef's Deployment to roll with the MCP tools", 30*time.Second, func() error {
		if h := podTemplateHash(t, c, "chef"); h == oldHash {
			return fmt.Errorf("hash still %s", h)
		}
		if out := c.sh(t, "kubectl get agent chef -o jsonpath='{.status.conditions[?(@.type==\"ToolsResolved\")].message}'"); !strings.Contains(out, "convert-units") {
			return fmt.Errorf("ToolsResolved: %s", out)
		}
		return nil
	})
	rt := startRenderedRuntime(t, c, "chef")
	defer rt.stop()
	if got := generate(t, rt.base+routes["generate"], headers, "What is 1 lb in kg?"); got != "1 lb is 0.45 kg." {
		t.Errorf("generate with the MCP tool: %q\nruntime:\n%s", got, rt.proc.Output())
	}
	for what, out := range map[string]string{
		"the ConfigMap":   c.sh(t, "kubectl get configmap agentry-chef -o yaml"),
		"the MCPServer":   c.sh(t, "kubectl get mcpserver kitchen -o yaml"),
		"the Agent":       c.sh(t, "kubectl get agent chef -o yaml"),
		"the events":      c.sh(t, "kubectl get events -A -o yaml"),
		"the runtime log": rt.proc.Output(),
	} {
		if strings.Contains(out, "e2e-mcp-header-value") {
			t.Errorf("the MCP header value reached %s", what)
		}
	}
}
