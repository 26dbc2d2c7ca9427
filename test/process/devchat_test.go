package process

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/samplemcp"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

type chatMessage struct {
	ID     int64           `json:"id"`
	Sender string          `json:"sender"`
	Type   string          `json:"type"`
	Text   string          `json:"text"`
	Data   json.RawMessage `json:"data"`
}

// TestDevChatsWithTheSampleAgents: `agentry dev` registers the sample agents on its chat
// service, enabled and pointing at its own runtime, and a user chats with both providers over
// the chat service: chef (ag-ui, with the show-recipe-card round trip) and weather (mastra).
//
// The weather agent here requires auth headers (spec.endpoint.auth, a local Secret): agentry dev
// registers it with them, so the chat's calls are not refused with 401.
func TestDevChatsWithTheSampleAgents(t *testing.T) {
	dir := t.TempDir()
	p, base := testutil.Start(t, binary, dir, nil, `Chat service: (http://\S+)/chat/v1`, "dev", "--addr", "127.0.0.1:0", "--dir", devSamples(t, dir))
	key, err := os.ReadFile(filepath.Join(dir, ".agentry", "chat-api-key"))
	testutil.Check(t, err)
	d := devChat{t: t, p: p, base: base + "/chat/v1", key: strings.TrimSpace(string(key))}
	var agents struct {
		Items []struct {
			AgentID, Provider, DeploymentURL string
			Enabled, HasHeaders              bool
		}
	}
	d.call(200, "GET", "/agents", "", nil, &agents)
	got := map[string]string{}
	for _, a := range agents.Items {
		if a.Enabled {
			got[a.AgentID] = a.Provider + " " + strings.TrimPrefix(a.DeploymentURL, base)
		}
		if a.HasHeaders != (a.AgentID == "weather") {
			t.Errorf("%s: hasHeaders %v", a.AgentID, a.HasHeaders)
		}
	}
	if got["chef"] != "ag-ui /api/agents/chef/ag-ui" || got["weather"] != "mastra /api/agents/weather/generate" || got["sous-chef"] != "mastra /api/agents/sous-chef/generate" {
		t.Fatalf("registered agents = %v", got)
	}

	// agentry dev seeded alice (and bob, carol, admin) on its first start.
	d.call(409, "POST", "/users", "", map[string]string{"uid": "alice", "name": "Alice"}, nil)
	var tok struct{ AuthToken string }
	d.call(200, "POST", "/login", "none", map[string]string{"appId": "agentry-dev", "uid": "alice", "authKey": "agentry-dev-auth-key"}, &tok)
	d.token = tok.AuthToken

	d.call(201, "POST", "/messages", d.token, map[string]string{"receiver": "weather", "receiverType": "user", "text": "What is the weather in Paris?"}, nil)
	d.wait("weather", "the weather agent's answer", func(m chatMessage) bool {
		return m.Sender == "weather" && m.Type == "assistant" && strings.Contains(m.Text, "Paris")
	})

	// Through the chat bridge to an agent whose tool is an MCP server's.
	d.call(201, "POST", "/messages", d.token, map[string]string{"receiver": "sous-chef", "receiverType": "user", "text": "What is 1 lb in kg?"}, nil)
	d.wait("sous-chef", "the sous-chef's answer from its MCP tool", func(m chatMessage) bool {
		return m.Sender == "sous-chef" && m.Type == "assistant" && m.Text == "1 lb is 0.45 kg."
	})

	d.call(201, "POST", "/messages", d.token, map[string]string{"receiver": "chef", "receiverType": "user", "text": "I have eggs, spinach and feta. What can I cook?"}, nil)
	card := d.wait("chef", "the recipe card action", func(m chatMessage) bool {
		return m.Type == "assistant" && strings.Contains(string(m.Data), `"awaitingActions"`)
	})
	var data struct {
		RunID           string   `json:"runId"`
		AwaitingActions []string `json:"awaitingActions"`
	}
	if err := json.Unmarshal(card.Data, &data); err != nil || len(data.AwaitingActions) != 1 {
		t.Fatalf("card message data %s (%v)", card.Data, err)
	}
	d.call(201, "POST", "/agent-runs/"+data.RunID+"/actions/"+data.AwaitingActions[0], d.token, map[string]any{"result": map[string]bool{"shown": true}}, nil)
	d.wait("chef", "the chef's final text", func(m chatMessage) bool {
		return m.Type == "assistant" && strings.Contains(m.Text, "Enjoy your meal")
	})
}

// devSamples copies the sample agents into dir/agents with the weather agent requiring auth
// headers (from a local Secret in dir) and the sample MCP server's agent, its server on a port
// of its own (dev serves the sample server only with its default directories), closed when the
// test ends. It returns the copy's directory.
func devSamples(t *testing.T, dir string) string {
	t.Helper()
	samples := filepath.Join(dir, "agents")
	testutil.Check(t, os.CopyFS(samples, os.DirFS("../../config/samples")))
	weather := filepath.Join(samples, "agent_weather.yaml")
	spec, err := os.ReadFile(weather)
	testutil.Check(t, err)
	spec = []byte(strings.Replace(string(spec), "  platform:\n", "  endpoint:\n    auth: {headersSecretRef: {name: weather-auth}}\n  platform:\n", 1))
	testutil.Check(t, os.WriteFile(weather, spec, 0o600))
	secret := filepath.Join(dir, ".agentry", "secrets", "weather-auth")
	testutil.Check(t, os.MkdirAll(secret, 0o700))
	testutil.Check(t, os.WriteFile(filepath.Join(secret, "Authorization"), []byte("Bearer weather-s3cret-0123"), 0o600))
	kitchen, kitchenURL, err := samplemcp.Serve("127.0.0.1:0", "test")
	testutil.Check(t, err)
	t.Cleanup(func() { _ = kitchen.Close() })
	for _, f := range []string{"mcpserver_kitchen.yaml", "agent_sous-chef.yaml"} {
		data, err := os.ReadFile(filepath.Join("../../config/samples-mcp", f))
		testutil.Check(t, err)
		data = []byte(strings.Replace(string(data), "http://127.0.0.1:4112/mcp", kitchenURL, 1))
		testutil.Check(t, os.WriteFile(filepath.Join(samples, f), data, 0o600))
	}
	return samples
}

// devChat is agentry dev's chat API as the test's user calls it.
type devChat struct {
	t                *testing.T
	p                *testutil.Proc
	base, key, token string
}

// call fails the test unless the call answers want (auth as devCall takes it); it decodes the
// answer into out.
func (d devChat) call(want int, method, path, auth string, body, out any) {
	d.t.Helper()
	status, raw, err := devCall(method, d.base+path, auth, d.key, body)
	if err != nil || status != want {
		d.t.Fatalf("%s %s: %d %v %s (want %d)\n%s", method, path, status, err, raw, want, d.p.Output())
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			d.t.Fatal(err)
		}
	}
}

// wait polls the user's conversation with `with` until a message is ok, and returns it.
func (d devChat) wait(with, what string, ok func(chatMessage) bool) chatMessage {
	d.t.Helper()
	var found chatMessage
	waitUntil(d.t, 30*time.Second, what, func() bool {
		var page struct{ Items []chatMessage }
		d.call(200, "GET", "/users/"+with+"/messages?limit=100", d.token, nil, &page)
		for _, m := range page.Items {
			if ok(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// devCall calls agentry dev's chat API: auth "" sends the REST API key, "none" nothing, else a
// bearer token.
func devCall(method, url, auth, apiKey string, body any) (int, []byte, error) {
	switch auth {
	case "":
		return restCall(method, url, http.Header{"Apikey": {apiKey}}, body)
	case "none":
		return restCall(method, url, http.Header{}, body)
	}
	return chatCall(method, url, auth, body)
}
