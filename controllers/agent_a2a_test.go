package controllers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// askingAgent is an Agent whose tool map holds the given entries.
func askingAgent(name string, entries ...string) string {
	return agentDoc(name, "  model: {name: gpt-4o-mini}\n  tools:\n  - "+strings.Join(entries, "\n  - "))
}

// renderedTool is the Tool document of the Agent's rendered config whose spec.id is id.
func renderedTool(t *testing.T, ns, agent, id string) *v1alpha1.Tool {
	t.Helper()
	reg, _, config := renderedRegistry(t, ns, agent)
	defer reg.Close()
	for _, doc := range strings.Split(config, "\n---\n") {
		if strings.Contains(doc, "kind: Tool\n") && strings.Contains(doc, "id: "+id+"\n") {
			tool := decode(t, doc).(*v1alpha1.Tool)
			if e, ok := reg.Get(agent); !ok || e.Agent.Tools[id] == nil {
				t.Fatalf("the runtime does not offer %q:\n%s", id, config)
			}
			return tool
		}
	}
	t.Fatalf("no Tool %q in the config of %s:\n%s", id, agent, config)
	return nil
}

// An agentRef becomes a Tool asking the other Agent at its in-cluster A2A endpoint with its
// headers Secret (mounted in the asker's pods); an Agent that does not exist, the asker itself,
// a loop of two, another namespace that is not allowed, and one whose auth an agentRef cannot
// send are each reported and left out.
func TestAgentRefs(t *testing.T) {
	ns, other := "t-a2a", "t-a2a-other"
	secret(t, ns, "weather-auth", map[string]string{"Authorization": "Bearer weather-s3cr3t"})
	create(t, ns, agentDoc("weather", "  model: {name: gpt-4o-mini}\n  platform: {introductoryMessage: I tell the weather of a city.}\n  endpoint:\n    auth: {headersSecretRef: {name: weather-auth}}")+"\n---\n"+
		askingAgent("planner", "{key: ask-weather, agentRef: {name: weather}, timeout: 20s}", "{key: ask-nobody, agentRef: {name: nobody}}", "{key: ask-me, agentRef: {name: planner}}")+"\n---\n"+
		askingAgent("ping", "{key: ask-pong, agentRef: {name: pong}}")+"\n---\n"+
		askingAgent("pong", "{key: ask-ping, agentRef: {name: ping}}"))
	a := waitCondition(t, ns, "planner", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonAgentNotFound,
		`"ask-nobody" asks Agent "t-a2a/nobody", which does not exist`, `"ask-me": the agent would ask itself`)
	weather := getAgent(t, ns, "weather")
	tool := renderedTool(t, ns, "planner", "ask-weather")
	if ex := tool.Spec.Execute; ex.A2A == nil || ex.A2A.URL != weather.Status.Endpoints.A2AInternal || ex.A2A.URL == "" ||
		ex.A2A.HeadersSecretRef == nil || ex.A2A.HeadersSecretRef.Name != "weather-auth" || ex.Timeout.Duration.String() != "20s" {
		t.Fatalf("the tool asking weather: %+v", ex)
	}
	if !strings.Contains(tool.Spec.Description, "Asks the agent weather") || !strings.Contains(tool.Spec.Description, "I tell the weather of a city.") {
		t.Errorf("its description %q", tool.Spec.Description)
	}
	if !strings.Contains(string(tool.Spec.InputSchema.Raw), `"message"`) {
		t.Errorf("its input schema %s", tool.Spec.InputSchema.Raw)
	}
	mounted := false
	for _, v := range deployment(t, ns, "planner").Spec.Template.Spec.Volumes {
		mounted = mounted || (v.Secret != nil && v.Secret.SecretName == "weather-auth")
	}
	if !mounted || a.Status.ConfigHash == "" {
		t.Errorf("the asker's pods do not mount weather's auth headers")
	}
	if cfg := child(t, ns, "planner", &corev1.ConfigMap{}).Data[render.ConfigKey]; strings.Contains(cfg, "weather-s3cr3t") {
		t.Error("a header value reached the ConfigMap")
	}
	for _, name := range []string{"ping", "pong"} {
		waitCondition(t, ns, name, v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonAgentRefLoop, "loop (t-a2a/"+name)
	}
	// Breaking the loop lets the other side through.
	updateAgent(t, ns, "pong", func(a *v1alpha1.Agent) { a.Spec.Tools = nil })
	waitCondition(t, ns, "ping", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved, "1 of 1 tools resolved")

	// Another namespace: only when the asked Agent allows it, and only without auth an agentRef
	// cannot carry there.
	create(t, ns, agentDoc("open", "  model: {name: gpt-4o-mini}"))
	create(t, other, askingAgent("visitor", "{key: ask-open, agentRef: {name: open, namespace: t-a2a}}", "{key: ask-weather, agentRef: {name: weather, namespace: t-a2a}}"))
	waitCondition(t, other, "visitor", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonAgentRefNotAllowed,
		`"ask-open" asks Agent "t-a2a/open", which does not allow Agents of namespace "t-a2a-other"`)
	for _, name := range []string{"open", "weather"} {
		updateAgent(t, ns, name, func(a *v1alpha1.Agent) {
			if a.Spec.Endpoint == nil {
				a.Spec.Endpoint = &v1alpha1.EndpointSpec{}
			}
			a.Spec.Endpoint.AllowAgentRefsFrom = []string{other}
		})
	}
	waitCondition(t, other, "visitor", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonAuthRequired,
		`"ask-weather" asks Agent "t-a2a/weather", whose endpoint needs credentials an agentRef cannot send`)
	if tool := renderedTool(t, other, "visitor", "ask-open"); tool.Spec.Execute.A2A.URL != getAgent(t, ns, "open").Status.Endpoints.A2AInternal {
		t.Errorf("the cross-namespace tool: %+v", tool.Spec.Execute.A2A)
	}

	// The asked Agent goes: its askers say so.
	testutil.NoError(t, k8s.Delete(ctx, getAgent(t, ns, "open")))
	waitCondition(t, other, "visitor", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonAgentNotFound, `"t-a2a/open", which does not exist`)
}

// cardServer serves an agent card at /.well-known/agent-card.json that the test may change,
// behind a bearer token when one is set.
type cardServer struct {
	*httptest.Server
	mu    sync.Mutex
	card  a2a.AgentCard
	token string
}

func startCardServer(t *testing.T, token string) *cardServer {
	s := &cardServer{token: token}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/moved/.well-known/agent-card.json":
			http.Redirect(w, r, "/.well-known/agent-card.json", http.StatusFound)
			return
		case r.URL.Path != "/.well-known/agent-card.json":
			http.NotFound(w, r)
			return
		case s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token:
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		_ = json.NewEncoder(w).Encode(s.card)
	}))
	s.card = a2a.AgentCard{Name: "Helper", Description: "Helps with spreadsheets.", URL: s.URL + "/rpc", ProtocolVersion: "0.3.0",
		PreferredTransport: a2a.TransportProtocolJSONRPC, Skills: []a2a.AgentSkill{{ID: "sheets", Name: "Sheets", Description: "Sums columns."}}}
	t.Cleanup(s.Close)
	return s
}

func (s *cardServer) change(f func(*a2a.AgentCard)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.card)
}

func remoteAgentDoc(name, url, extra string) string {
	return fmt.Sprintf("apiVersion: agentry.dev/v1alpha1\nkind: RemoteAgent\nmetadata: {name: %s}\nspec:\n  url: %q\n%s", name, url, extra)
}

func waitRemoteReady(t *testing.T, ns, name string, status metav1.ConditionStatus, reason string, contains ...string) *v1alpha1.RemoteAgent {
	t.Helper()
	var ra *v1alpha1.RemoteAgent
	eventually(t, fmt.Sprintf("RemoteAgent %s/%s Ready=%s (%s)", ns, name, status, reason), func() error {
		ra = get(t, ns, name, &v1alpha1.RemoteAgent{})
		c := findReady(ra.Status.Conditions)
		if c == nil || c.Status != status || c.Reason != reason || c.ObservedGeneration != ra.Generation {
			return fmt.Errorf("Ready is %+v", c)
		}
		for _, want := range contains {
			if !strings.Contains(c.Message, want) {
				return fmt.Errorf("Ready lacks %q: %s", want, c.Message)
			}
		}
		return nil
	})
	return ra
}

func findReady(conds []metav1.Condition) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == v1alpha1.ConditionReady {
			return &conds[i]
		}
	}
	return nil
}

// A RemoteAgent's card, read with its headers Secret, lands in its status (the token nowhere);
// an Agent asks it at the endpoint the card names, described from the card, and follows the
// card when it changes. A card that needs credentials, a 404, a redirect and a metadata address
// are each a clear reason; an outage keeps the last card, and the Agent says so.
func TestRemoteAgents(t *testing.T) {
	ns := "t-remote"
	srv := startCardServer(t, "remote-s3cr3t")
	secret(t, ns, "helper-auth", map[string]string{"Authorization": "Bearer remote-s3cr3t"})
	create(t, ns, remoteAgentDoc("helper", srv.URL, "  headersSecretRef: {name: helper-auth}\n  timeout: 15s\n")+"\n---\n"+
		remoteAgentDoc("no-creds", srv.URL+"/.well-known/agent-card.json", "")+"\n---\n"+
		remoteAgentDoc("missing", srv.URL+"/nothing", "")+"\n---\n"+
		remoteAgentDoc("moved", srv.URL+"/moved", "")+"\n---\n"+
		remoteAgentDoc("metadata", "http://169.254.169.254/latest", "")+"\n---\n"+
		askingAgent("asker", "{key: ask-helper, remoteAgentRef: {name: helper}}", "{key: ask-ghost, remoteAgentRef: {name: ghost}}"))
	ra := waitRemoteReady(t, ns, "helper", metav1.ConditionTrue, v1alpha1.ReasonDiscovered, `"Helper"`)
	if c := ra.Status.Card; c == nil || c.Name != "Helper" || c.URL != srv.URL+"/rpc" || c.ProtocolVersion != "0.3.0" || len(c.Skills) != 1 || c.Skills[0].ID != "sheets" || ra.Status.LastDiscoveryTime == nil {
		t.Fatalf("the card in status: %+v", ra.Status)
	}
	waitRemoteReady(t, ns, "no-creds", metav1.ConditionFalse, v1alpha1.ReasonUnauthorized, "401")
	waitRemoteReady(t, ns, "missing", metav1.ConditionFalse, v1alpha1.ReasonProtocolError, "404")
	waitRemoteReady(t, ns, "moved", metav1.ConditionFalse, v1alpha1.ReasonProtocolError, "redirect")
	waitRemoteReady(t, ns, "metadata", metav1.ConditionFalse, v1alpha1.ReasonUnreachable, "egress policy")
	for _, name := range []string{"helper", "no-creds"} {
		if b := toYAML(t, get(t, ns, name, &v1alpha1.RemoteAgent{})); strings.Contains(b, "remote-s3cr3t") {
			t.Errorf("the token reached RemoteAgent %s:\n%s", name, b)
		}
	}

	waitCondition(t, ns, "asker", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonRemoteAgentNotFound, `"ask-ghost" names RemoteAgent "ghost", which does not exist`)
	tool := renderedTool(t, ns, "asker", "ask-helper")
	if ex := tool.Spec.Execute; ex.A2A == nil || ex.A2A.URL != srv.URL+"/rpc" || ex.A2A.HeadersSecretRef == nil || ex.A2A.HeadersSecretRef.Name != "helper-auth" || ex.Timeout.Duration.String() != "15s" {
		t.Fatalf("the tool asking helper: %+v", ex)
	}
	if !strings.Contains(tool.Spec.Description, "Asks the remote agent Helper") || !strings.Contains(tool.Spec.Description, "Helps with spreadsheets.") {
		t.Errorf("its description %q", tool.Spec.Description)
	}

	// The card changes: the status follows at the next read, and so does the asker's tool.
	srv.change(func(c *a2a.AgentCard) { c.Description = "Helps with invoices now." })
	eventually(t, "the asker follows the card", func() error {
		if d := renderedTool(t, ns, "asker", "ask-helper").Spec.Description; !strings.Contains(d, "invoices") {
			return fmt.Errorf("description %q", d)
		}
		return nil
	})
	// A card without a JSON-RPC endpoint cannot be used; the last good card stays.
	srv.change(func(c *a2a.AgentCard) { c.PreferredTransport = a2a.TransportProtocolGRPC })
	waitRemoteReady(t, ns, "helper", metav1.ConditionFalse, v1alpha1.ReasonProtocolError, "no JSON-RPC endpoint")
	waitCondition(t, ns, "asker", v1alpha1.ConditionToolsResolved, metav1.ConditionFalse, v1alpha1.ReasonRemoteAgentNotReady,
		`RemoteAgent "helper" is not ready (ProtocolError`, "the card read last is still used")
	srv.Close()
	ra = waitRemoteReady(t, ns, "helper", metav1.ConditionFalse, v1alpha1.ReasonUnreachable)
	if ra.Status.Card == nil || !strings.Contains(ra.Status.Card.Description, "invoices") {
		t.Errorf("the card after an outage: %+v", ra.Status.Card)
	}
	if tool := renderedTool(t, ns, "asker", "ask-helper"); tool.Spec.Execute.A2A.URL != srv.URL+"/rpc" {
		t.Errorf("the tool after an outage: %+v", tool.Spec.Execute.A2A)
	}
}

// An agent served by the official JavaScript SDK (test/conformance/remote-agent.mjs) as a
// RemoteAgent: its card in status and in its asker's tool, and a change of its card followed.
func TestRemoteAgentServedByJSSDK(t *testing.T) {
	ns := "t-remote-js"
	_, url := testutil.StartRemoteAgent(t)
	create(t, ns, remoteAgentDoc("js", url, "")+"\n---\n"+askingAgent("asker", "{key: ask-js, remoteAgentRef: {name: js}}"))
	ra := waitRemoteReady(t, ns, "js", metav1.ConditionTrue, v1alpha1.ReasonDiscovered)
	if c := ra.Status.Card; c == nil || c.Name != "JS SDK remote agent" || c.URL != url || c.ProtocolVersion != "0.3.0" || len(c.Skills) != 1 {
		t.Fatalf("the JS SDK agent's card: %+v", ra.Status.Card)
	}
	waitCondition(t, ns, "asker", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	if d := renderedTool(t, ns, "asker", "ask-js").Spec.Description; !strings.Contains(d, "Echoes what it is told") {
		t.Fatalf("the tool's description %q", d)
	}
	res, err := http.Post(url+"control/card", "application/json", strings.NewReader(`{"name":"Renamed agent","description":"Tells jokes now."}`))
	testutil.NoError(t, err)
	_ = res.Body.Close()
	if res.StatusCode/100 != 2 {
		t.Fatalf("control/card: %d", res.StatusCode)
	}
	eventually(t, "the status and the asker follow the card", func() error {
		if c := get(t, ns, "js", &v1alpha1.RemoteAgent{}).Status.Card; c == nil || c.Name != "Renamed agent" {
			return fmt.Errorf("card %+v", c)
		}
		if d := renderedTool(t, ns, "asker", "ask-js").Spec.Description; !strings.Contains(d, "Renamed agent") || !strings.Contains(d, "Tells jokes now.") {
			return fmt.Errorf("description %q", d)
		}
		return nil
	})
}
