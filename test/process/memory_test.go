package process

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const slowScript = `fallback:
  text: "Noted: {{ .Text }}. This answer streams slowly enough that a kill lands in the middle of some runs."
  chunkDelayMs: 4
`

func memoryConfig(t *testing.T, url string) string {
	t.Helper()
	dir := t.TempDir()
	agent := fmt.Sprintf(`apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: diary}
spec:
  model: {name: m, maxRetries: 0}
  memory: {url: %q, lastMessages: 2}
  endpoint: {rateLimit: {requestsPerMinute: 0}}
`, url)
	testutil.Check(t, os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(agent), 0o600))
	return dir
}

func scriptedModel(t *testing.T) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "script.yaml")
	testutil.Check(t, os.WriteFile(script, []byte(slowScript), 0o600))
	_, url := start(t, nil, `listening on (http://\S+)`, "scripted-model", "--addr", "127.0.0.1:0", "--script", script)
	return url
}

func serveMemory(t *testing.T, modelURL, config string) (*testutil.Proc, string) {
	t.Helper()
	return start(t, []string{"OPENAI_BASE_URL=" + modelURL}, `msg="serving agents" addr=(\S+)`, "serve", "--config", config, "--addr", "127.0.0.1:0")
}

// turn sends one generate request on thread; it reports whether the turn completed.
func turn(base, thread, text string) bool {
	body := fmt.Sprintf(`{"messages":%q,"memory":{"thread":%q,"resource":"diarist"}}`, text, thread)
	resp, err := http.Post(base+"/api/agents/diary/generate", "application/json", strings.NewReader(body))
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return err == nil && resp.StatusCode == 200
}

type storedMessage struct {
	ID      string `json:"id"`
	Role    string `json:"role"`
	Content string `json:"content"`
}

// storedMessages reads the whole thread, a page at a time.
func storedMessages(t *testing.T, base, thread string) []storedMessage {
	t.Helper()
	var all []storedMessage
	for page := 0; ; page++ {
		resp, err := http.Get(fmt.Sprintf("%s/api/memory/threads/%s/messages?agentId=diary&resourceId=diarist&page=%d&perPage=100", base, thread, page))
		testutil.Check(t, err)
		var out struct {
			Messages []storedMessage
			HasMore  bool
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("page %d: %d %v", page, resp.StatusCode, err)
		}
		all = append(all, out.Messages...)
		if !out.HasMore {
			return all
		}
	}
}

// checkTurns verifies that every completed turn is stored, that every stored user message is
// followed by its answer (a turn is stored whole or not at all) and that nothing is stored twice.
func checkTurns(t *testing.T, msgs []storedMessage, completed []string) {
	t.Helper()
	ids := map[string]bool{}
	users := map[string]int{}
	for i, m := range msgs {
		if ids[m.ID] {
			t.Errorf("message %s stored twice", m.ID)
		}
		ids[m.ID] = true
		if m.Role == "user" {
			users[m.Content]++
			if i+1 >= len(msgs) || msgs[i+1].Role != "assistant" || !strings.Contains(msgs[i+1].Content, m.Content) {
				t.Errorf("turn %q is stored without its answer", m.Content)
			}
		}
	}
	for _, c := range completed {
		if users[c] != 1 {
			t.Errorf("completed turn %q stored %d times", c, users[c])
		}
	}
}

// TestKillDuringRuns kills the runtime with SIGKILL while runs are in flight, restarts it and
// checks every completed turn, for SQLite and PostgreSQL.
func TestKillDuringRuns(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			url := "file:" + filepath.Join(t.TempDir(), "memory.db")
			if backend == "postgres" {
				url = testutil.StartPostgres(t).URL
			}
			modelURL := scriptedModel(t)
			config := memoryConfig(t, url)
			proc, addr := serveMemory(t, modelURL, config)
			base := "http://" + addr

			var mu sync.Mutex
			var completed []string
			var wg sync.WaitGroup
			stop := make(chan struct{})
			for w := 0; w < 4; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						text := fmt.Sprintf("turn-%d-%d", w, i)
						if turn(base, "crash", text) {
							mu.Lock()
							completed = append(completed, text)
							mu.Unlock()
						} else {
							return // the runtime is gone
						}
					}
				}()
			}
			waitUntil(t, 60*time.Second, "10 turns complete", func() bool { mu.Lock(); defer mu.Unlock(); return len(completed) >= 10 })
			if err := proc.Cmd.Process.Kill(); err != nil { // SIGKILL, mid-run
				t.Fatal(err)
			}
			close(stop)
			wg.Wait()
			if len(completed) < 10 {
				t.Fatalf("only %d turns completed before the kill", len(completed))
			}

			if backend == "sqlite" {
				db, err := sql.Open("sqlite", strings.TrimPrefix(url, "file:"))
				testutil.Check(t, err)
				var check string
				if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
					t.Errorf("integrity_check after SIGKILL: %q %v", check, err)
				}
				_ = db.Close()
			}
			_, addr = serveMemory(t, modelURL, config)
			msgs := storedMessages(t, "http://"+addr, "crash")
			checkTurns(t, msgs, completed)
			t.Logf("%s: %d turns completed before SIGKILL, %d messages stored", backend, len(completed), len(msgs))
			if !turn("http://"+addr, "crash", "after-restart") {
				t.Error("the restarted runtime cannot continue the thread")
			}
		})
	}
}

// TestTwoRuntimesOnePostgresThread has two runtime processes write to the same thread at once.
func TestTwoRuntimesOnePostgresThread(t *testing.T) {
	pg := testutil.StartPostgres(t)
	modelURL := scriptedModel(t)
	config := memoryConfig(t, pg.URL)
	_, a := serveMemory(t, modelURL, config)
	_, b := serveMemory(t, modelURL, config)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var completed []string
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := "http://" + a
			if w%2 == 1 {
				base = "http://" + b
			}
			for i := 0; i < 5; i++ {
				text := fmt.Sprintf("shared-%d-%d", w, i)
				if !turn(base, "shared", text) {
					t.Errorf("turn %s failed", text)
					return
				}
				mu.Lock()
				completed = append(completed, text)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	msgs := storedMessages(t, "http://"+a, "shared")
	checkTurns(t, msgs, completed)
	if len(completed) != 40 || len(msgs) != 80 {
		t.Errorf("%d turns, %d messages stored (want 40 and 80)", len(completed), len(msgs))
	}
}
