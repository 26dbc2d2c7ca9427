package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

type renderedRuntime struct {
	proc *testutil.Proc
	base string
	hash string
}

func (r *renderedRuntime) stop() { _ = r.proc.Cmd.Process.Signal(os.Interrupt) }

// startRenderedRuntime runs the runtime image's agentry (the runtime build) exactly as the
// Agent's rendered Deployment says: its args, its env (secretKeyRef values read from the
// Secret, resourceFieldRef values from the container's resources), its ConfigMap and Secret
// volumes written as files at their mount paths. Absolute paths are placed under a temporary
// root and the listen address is a free loopback port; nothing else is changed.
func startRenderedRuntime(t *testing.T, c *cluster, agent string) *renderedRuntime {
	t.Helper()
	p := loadPod(t, c, "", "agentry-"+agent)
	args := p.localArgs(map[string]string{"--addr": "127.0.0.1:0"})
	proc, addr := testutil.Start(t, runtimeBinary, root, p.env, `"msg":"serving agents".*"addr":"([^"]+)"`, args...)
	return &renderedRuntime{proc: proc, base: "http://" + addr, hash: p.dep.Spec.Template.Annotations["agentry.dev/config-hash"]}
}

func podTemplateHash(t *testing.T, c *cluster, agent string) string {
	var dep appsv1.Deployment
	c.jsonOf(t, "deployment agentry-"+agent, &dep)
	return dep.Spec.Template.Annotations["agentry.dev/config-hash"]
}

// ingressPathsOf maps each platform route the Agent's Ingress publishes (ag-ui, generate,
// stream and the approval answers) to its path, checks the A2A routes beside them, that nothing
// else is published and that every path is exact.
func ingressPathsOf(t *testing.T, c *cluster, agent string) map[string]string {
	t.Helper()
	var ing networkingv1.Ingress
	c.jsonOf(t, "ingress agentry-"+agent, &ing)
	if len(ing.Spec.Rules) != 1 || ing.Spec.Rules[0].HTTP == nil {
		t.Fatalf("ingress rules: %+v", ing.Spec.Rules)
	}
	routes := map[string]string{}
	var a2a []string
	for _, p := range ing.Spec.Rules[0].HTTP.Paths {
		if p.Backend.Service.Name != "agentry-"+agent || p.Backend.Service.Port.Name != "http" || p.PathType == nil || *p.PathType != networkingv1.PathTypeExact {
			t.Fatalf("ingress path %s: %+v", p.Path, p)
		}
		if !strings.HasPrefix(p.Path, "/api/agents/") {
			a2a = append(a2a, p.Path)
			continue
		}
		routes[p.Path[strings.LastIndex(p.Path, "/")+1:]] = p.Path
	}
	if len(routes) != 5 || routes["ag-ui"] == "" || routes["generate"] == "" || routes["stream"] == "" || routes["approve-tool-call"] == "" || routes["decline-tool-call"] == "" {
		t.Fatalf("the Ingress must publish the platform routes only: %v", routes)
	}
	// And the agent's A2A endpoint with its card (at both paths the runtime serves it).
	id := strings.Split(routes["ag-ui"], "/")[3]
	if got := strings.Join(a2a, " "); got != "/a2a/"+id+" /a2a/"+id+"/.well-known/agent-card.json /.well-known/"+id+"/agent-card.json" {
		t.Fatalf("the Ingress's A2A routes: %s", got)
	}
	return routes
}

// authHeaders are the headers the platform sends: the keys and values of the Agent's auth
// Secret, as the chat platform's Headers field holds them.
func authHeaders(t *testing.T, c *cluster, agent string) map[string]string {
	t.Helper()
	var a struct {
		Spec struct {
			Endpoint struct {
				Auth *struct {
					HeadersSecretRef *struct{ Name string }
				}
			}
		}
	}
	c.jsonOf(t, "agent "+agent, &a)
	if a.Spec.Endpoint.Auth == nil || a.Spec.Endpoint.Auth.HeadersSecretRef == nil {
		t.Fatalf("%s is exposed without spec.endpoint.auth.headersSecretRef", agent)
	}
	var s corev1.Secret
	c.jsonOf(t, "secret "+a.Spec.Endpoint.Auth.HeadersSecretRef.Name, &s)
	out := map[string]string{}
	for k, v := range s.Data {
		out[k] = string(v)
	}
	if len(out) == 0 {
		t.Fatalf("auth Secret %s has no headers", a.Spec.Endpoint.Auth.HeadersSecretRef.Name)
	}
	return out
}

func postStatus(t *testing.T, url string, headers map[string]string) int {
	code, _ := send(t, http.DefaultClient, http.MethodPost, url, headers, `{"messages":[{"role":"user","content":"hi"}]}`)
	return code
}

func generate(t *testing.T, url string, headers map[string]string, prompt string) string {
	t.Helper()
	code, raw := send(t, http.DefaultClient, http.MethodPost, url, headers, fmt.Sprintf(`{"messages":[{"role":"user","content":%q}]}`, prompt))
	if code != 200 {
		t.Fatalf("generate: %d %s", code, raw)
	}
	var out struct {
		Text string `json:"text"`
	}
	testutil.NoError(t, json.Unmarshal([]byte(raw), &out))
	return out.Text
}
