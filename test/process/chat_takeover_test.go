package process

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// TestChatReplicaKilledMidRun: two `agentry chat` replicas on one PostgreSQL, an agent on
// Agentry's runtime answering slowly. A person's message goes through one replica, which is
// killed (SIGKILL) while it relays the answer; the other replica takes the run over, re-attaches
// to the agent's call and stores the whole answer, once, with no error in the conversation.
func TestChatReplicaKilledMidRun(t *testing.T) {
	a, b, alice, pg := countingAgentOnReplicas(t)
	mustCall(t, 201, "POST", a.base+"/messages", alice, map[string]any{"receiver": "counter", "receiverType": "user", "text": "Count for me"}, nil)

	// Kill the replica while its call to the agent is in flight.
	db, err := sql.Open("pgx", pg.URL)
	testutil.Check(t, err)
	defer db.Close()
	waitUntil(t, 30*time.Second, "the agent call to be in flight", func() bool {
		var n int
		return db.QueryRow(`SELECT count(*) FROM chat_agent_runs WHERE call_id <> ''`).Scan(&n) == nil && n == 1
	})
	a.kill(t)
	killed := time.Now()

	var texts []string
	waitUntil(t, 60*time.Second, "the other replica to store the answer", func() bool {
		status, body, err := chatCall("GET", b.base+"/users/counter/messages?limit=50", alice, nil)
		if err != nil || status != 200 {
			return false
		}
		var page struct {
			Items []struct{ Sender, Type, Text string } `json:"items"`
		}
		_ = json.Unmarshal(body, &page)
		texts = texts[:0]
		done := false
		for _, m := range page.Items {
			if m.Sender == "counter" {
				texts = append(texts, m.Type+":"+m.Text)
				done = true
			}
		}
		return done
	})
	if len(texts) != 1 || texts[0] != "assistant:"+countedAnswer {
		t.Fatalf("the agent's messages after the kill: %q", texts)
	}
	t.Logf("the answer was stored %s after the kill", time.Since(killed).Round(time.Second))
}

// countedAnswer is what the counter agent answers, a word every 400 ms.
const countedAnswer = "one two three four five six seven eight nine ten eleven twelve"

// countingAgentOnReplicas starts a paced scripted model, a runtime serving the counter agent
// and two `agentry chat` replicas on one PostgreSQL with the agent configured, and returns the
// replicas, alice's token and the database.
func countingAgentOnReplicas(t *testing.T) (a, b *chatProc, alice string, pg *testutil.Postgres) {
	t.Helper()
	pg = testutil.StartPostgres(t)
	script := filepath.Join(t.TempDir(), "script.yaml")
	testutil.Check(t, os.WriteFile(script, []byte("fallback:\n  text: \""+countedAnswer+"\"\n  chunkDelayMs: 400\n"), 0o600))
	_, modelURL := start(t, nil, `listening on (http://\S+)`, "scripted-model", "--addr", "127.0.0.1:0", "--script", script)
	config := t.TempDir()
	testutil.Check(t, os.WriteFile(filepath.Join(config, "agent.yaml"), []byte("apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {name: counter}\nspec:\n  model: {name: m, maxRetries: 0}\n"), 0o600))
	_, runtime := start(t, []string{"OPENAI_BASE_URL=" + modelURL}, `msg="serving agents" addr=(\S+)`, "serve", "--config", config, "--addr", "127.0.0.1:0")

	httpAgents := "AGENTRY_CHAT_ALLOW_HTTP_AGENTS=true" // the runtime listens on plain loopback http
	a, b = startChat(t, pg.URL, 2, httpAgents), startChat(t, pg.URL, 2, httpAgents)
	mustCall(t, 201, "PUT", a.base+"/agents/counter", chatAPIKey, map[string]any{"agentId": "counter", "name": "Counter", "provider": "ag-ui",
		"deploymentUrl": "http://" + runtime + "/api/agents/counter/ag-ui", "enabled": true}, nil)
	return a, b, createChatUser(t, a.base, "alice"), pg
}
