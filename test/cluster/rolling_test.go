package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// rollingUsers chat with chef while a helm upgrade rolls everything they go through.
const rollingUsers = 20

// rollingUpgradeUnderLoad (issue 37): the chat service runs as two replicas on PostgreSQL (a
// real server on the node, reached from the pods over the cluster network), the model answers
// word by word (several seconds an answer), and 20 people keep asking chef, each waiting for
// the answer before the next question, as `helm upgrade` rolls the chat replicas, the operator
// and, through the operator, chef's pods. Every question is stored once, every answer is
// whole (the scripted model's exact text for it), nobody sees an error; the numbers are logged
// as a table that `make bench` prints.
func rollingUpgradeUnderLoad(t *testing.T, c *Cluster) {
	_, pgURL := testutil.StartPostgresOn(t, NodeIP, PodCIDR)
	c.kubectl(t, "patch", "deployment", "scripted-model", "--type", "json", "-p",
		`[{"op":"replace","path":"/spec/template/spec/containers/0/args","value":["scripted-model","--addr",":8090","--pace","120ms"]}]`)
	c.kubectl(t, "rollout", "status", "deployment/scripted-model", "--timeout=120s")
	c.kubectl(t, "-n", ns, "create", "secret", "generic", "agentry-chat-postgres", "--from-literal=url="+pgURL)
	c.sh(t, "helm upgrade agentry charts/agentry --namespace agentry-system --reuse-values --set chat.replicas=2 "+
		"--set chat.storage.type=postgres --set chat.storage.existingSecret=agentry-chat-postgres")
	c.kubectl(t, "-n", ns, "rollout", "status", "deployment/agentry-chat", "--timeout=180s")
	c.chatSettled(t, 2)
	api := c.serviceURL(t, ns, "agentry-chat") + "/chat/v1"
	key := c.chatKey
	// The Service's rules follow the new pods a moment after they are ready: until then a
	// connection may go to a pod that is gone, so each set-up call is tried until it answers.
	admin := &chatter{uid: "admin", api: api, apikey: key}
	admin.must(t, "PUT", "/agents/chef", map[string]any{"agentId": "chef", "provider": "ag-ui", "name": "Chef",
		"agentRef": "default/chef", "enabled": true, "auth": "service-account"}, 200, 201)
	users := make([]*chatter, rollingUsers)
	for i := range users {
		uid := fmt.Sprintf("load%02d", i+1)
		admin.must(t, "POST", "/users", map[string]string{"uid": uid, "name": "Load " + uid}, 201, 409)
		var tok struct {
			AuthToken string `json:"authToken"`
		}
		if err := json.Unmarshal(admin.must(t, "POST", "/users/"+uid+"/auth_tokens", nil, 200, 201), &tok); err != nil || tok.AuthToken == "" {
			t.Fatalf("no token for %s", uid)
		}
		users[i] = &chatter{uid: uid, token: tok.AuthToken, api: api}
	}
	// What chef answers a question, from one asked before the load: the scripted model echoes it.
	probe := users[0].ask(t, "Warm-up question", time.Now().Add(90*time.Second))
	if probe.err != "" {
		t.Fatalf("the warm-up question: %s", probe.err)
	}
	answerTo := func(q string) string { return strings.ReplaceAll(probe.answer, "Warm-up question", q) }

	var stop atomic.Bool
	var wg sync.WaitGroup
	for _, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; !stop.Load(); n++ {
				q := fmt.Sprintf("Question %d from %s", n, u.uid)
				r := u.ask(t, q, time.Now().Add(3*time.Minute))
				r.question = q
				if r.err == "" && r.answer != answerTo(q) {
					r.err = fmt.Sprintf("the answer to %q is not whole: %q", q, r.answer)
				}
				u.add(r)
			}
		}()
	}
	// Steady load first, then the upgrade: new operator and chat pods, and through the operator's
	// new default resources, new pods for every agent.
	loadStart := time.Now()
	c.eventually(t, 2*time.Minute, "every user answered twice before the upgrade", func() bool {
		return !slices.ContainsFunc(users, func(u *chatter) bool { return u.count() < 2 })
	})
	pods := func() string {
		return c.get("{.items[*].metadata.name}", "-n", ns, "get", "pods", "-l", "app.kubernetes.io/component in (chat,operator)") +
			" " + c.podNames("chef")
	}
	before := strings.Fields(pods())
	upgradeAt := time.Now()
	c.sh(t, "helm upgrade agentry charts/agentry --namespace agentry-system --reuse-values --set chat.logLevel=debug --set runtime.resources.requests.cpu=60m")
	c.kubectl(t, "-n", ns, "rollout", "status", "deployment/agentry-operator", "--timeout=180s")
	c.kubectl(t, "-n", ns, "rollout", "status", "deployment/agentry-chat", "--timeout=240s")
	c.eventually(t, 2*time.Minute, "chef's pods roll with the new resources", func() bool {
		return c.get("{.spec.template.spec.containers[0].resources.requests.cpu}", "get", "deployment", "agentry-chef") == "60m"
	})
	c.kubectl(t, "rollout", "status", "deployment/agentry-chef", "--timeout=180s")
	c.eventually(t, 2*time.Minute, "every pod from before the upgrade replaced and gone", func() bool {
		return !slices.ContainsFunc(strings.Fields(pods()), func(p string) bool { return slices.Contains(before, p) })
	})
	rolledAt := time.Now()
	// Steady load after it too, then the questions in flight are answered.
	marks := map[string]int{}
	for _, u := range users {
		marks[u.uid] = u.count()
	}
	c.eventually(t, 3*time.Minute, "every user answered again after the upgrade", func() bool {
		return !slices.ContainsFunc(users, func(u *chatter) bool { return u.count() < marks[u.uid]+1 })
	})
	stop.Store(true)
	wg.Wait()

	// What the conversations hold: each question once, its whole answer once, no error.
	var runs, failures, retries int
	var longest, during time.Duration
	var lat []time.Duration
	for _, u := range users {
		msgs := u.history(t)
		for _, r := range u.results {
			runs++
			retries += r.retries
			lat = append(lat, r.took)
			longest = max(longest, r.took)
			if r.sent.After(upgradeAt.Add(-10*time.Second)) && r.sent.Before(rolledAt) {
				during = max(during, r.took)
			}
			if r.err != "" {
				failures++
				t.Errorf("%s: %s", u.uid, r.err)
				continue
			}
			if n := countText(msgs, "", r.question); n != 1 {
				failures++
				t.Errorf("%s: %q stored %d times", u.uid, r.question, n)
			}
			if n := countText(msgs, "chef", answerTo(r.question)); n != 1 {
				failures++
				t.Errorf("%s: the answer to %q stored %d times", u.uid, r.question, n)
			}
		}
		for _, m := range msgs {
			if m.Type == "agent_error" {
				failures++
				t.Errorf("%s saw an error: %s", u.uid, m.Text)
			}
		}
	}
	slices.Sort(lat)
	// What the new chat replicas say they did with the runs the old ones handed over.
	logs, _ := c.Kubectl(t.Context(), "-n", ns, "logs", "-l", "app.kubernetes.io/component=chat", "--tail=-1")
	tookOver, askedAgain := strings.Count(logs, "taking over an agent run"), strings.Count(logs, "calling the agent again")
	t.Logf("rolling-upgrade | measure | result |")
	t.Logf("rolling-upgrade |---|---|")
	t.Logf("rolling-upgrade | people chatting (each waits for the answer, then asks again) | %d |", rollingUsers)
	t.Logf("rolling-upgrade | rolled by helm upgrade | 2 chat replicas (PostgreSQL), the operator, chef's pod |")
	t.Logf("rolling-upgrade | load, upgrade until every pod replaced | %s, %s |", time.Since(loadStart).Round(time.Second), rolledAt.Sub(upgradeAt).Round(time.Second))
	t.Logf("rolling-upgrade | runs (questions answered) | %d |", runs)
	t.Logf("rolling-upgrade | messages stored (questions and answers, each once) | %d |", 2*(runs-failures))
	t.Logf("rolling-upgrade | failures (errors seen, answers missing, cut or doubled) | %d |", failures)
	t.Logf("rolling-upgrade | runs a stopping chat replica handed over, taken over by another | %d (of them asked again, the agent's pod replaced too: %d) |", tookOver, askedAgain)
	t.Logf("rolling-upgrade | sends retried (connection refused or reset by a replica going away) | %d |", retries)
	t.Logf("rolling-upgrade | question to whole answer, median / longest | %s / %s |", lat[len(lat)/2].Round(100*time.Millisecond), longest.Round(100*time.Millisecond))
	t.Logf("rolling-upgrade | longest, for a question sent during the upgrade | %s |", during.Round(100*time.Millisecond))
}

// chatter is one person asking chef, one question at a time (or, with apikey, the admin).
type chatter struct {
	uid, token, api, apikey string
	mu                      sync.Mutex
	results                 []askResult
}

// must sends a set-up request until it gets one of the statuses want (within a minute; a
// connection error or another status is tried again) and returns the answer's body.
func (u *chatter) must(t *testing.T, method, path string, body any, want ...int) []byte {
	t.Helper()
	var last string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		code, b, err := u.do(method, path, body)
		if err == nil && slices.Contains(want, code) {
			return b
		}
		last = fmt.Sprintf("%d %s %v", code, b, err)
	}
	t.Fatalf("%s %s: %s", method, path, last)
	return nil
}

type askResult struct {
	question, answer, err string
	sent                  time.Time
	took                  time.Duration
	retries               int
}

type chatMessage struct {
	Sender string `json:"sender"`
	Type   string `json:"type"`
	Text   string `json:"text"`
}

var loadClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

func (u *chatter) add(r askResult) {
	u.mu.Lock()
	u.results = append(u.results, r)
	u.mu.Unlock()
}

func (u *chatter) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.results)
}

// ask sends q as a client does (a message id, so a retry after a failed connection is stored
// once) and waits for chef's answer to it in the conversation.
func (u *chatter) ask(t *testing.T, q string, deadline time.Time) askResult {
	r := askResult{sent: time.Now()}
	muid := fmt.Sprintf("%s-%d", u.uid, rand.Int64())
	for {
		code, body, err := u.do("POST", "/messages", map[string]string{"receiver": "chef", "receiverType": "user", "text": q, "muid": muid})
		if err == nil && (code == 200 || code == 201) {
			break
		}
		if time.Now().After(deadline) {
			r.err = fmt.Sprintf("sending %q: %d %s %v", q, code, body, err)
			return r
		}
		r.retries++
		time.Sleep(200 * time.Millisecond)
	}
	for time.Now().Before(deadline) {
		time.Sleep(400 * time.Millisecond)
		code, body, err := u.do("GET", "/users/chef/messages?limit=30", nil)
		if err != nil || code != 200 {
			continue // a replica going away: the next try reaches another
		}
		var page struct {
			Items []chatMessage `json:"items"`
		}
		if json.Unmarshal(body, &page) != nil {
			continue
		}
		asked := false
		for _, m := range page.Items {
			switch {
			case m.Sender == u.uid && m.Text == q:
				asked = true
			case asked && m.Sender == "chef" && m.Type == "agent_error":
				r.err = "an error: " + m.Text
				r.took = time.Since(r.sent)
				return r
			case asked && m.Sender == "chef" && m.Type == "assistant" && m.Text != "":
				r.answer, r.took = m.Text, time.Since(r.sent)
				return r
			}
		}
	}
	r.err = fmt.Sprintf("no answer to %q", q)
	return r
}

// history is the whole conversation with chef.
func (u *chatter) history(t *testing.T) []chatMessage {
	t.Helper()
	code, body, err := u.do("GET", "/users/chef/messages?limit=100", nil)
	if err != nil || code != 200 {
		t.Fatalf("%s's conversation: %d %s %v", u.uid, code, body, err)
	}
	var page struct {
		Items []chatMessage `json:"items"`
	}
	testutil.Check(t, json.Unmarshal(body, &page))
	return page.Items
}

func (u *chatter) do(method, path string, body any) (int, []byte, error) {
	var rd *strings.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	} else {
		rd = strings.NewReader("")
	}
	req, err := http.NewRequest(method, u.api+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if u.apikey != "" {
		req.Header.Set("apikey", u.apikey)
	} else {
		req.Header.Set("Authorization", "Bearer "+u.token)
	}
	res, err := loadClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// countText counts the messages of sender ("" = anyone but chef) whose text is text.
func countText(msgs []chatMessage, sender, text string) int {
	n := 0
	for _, m := range msgs {
		if m.Text == text && (m.Sender == sender || (sender == "" && m.Sender != "chef")) {
			n++
		}
	}
	return n
}

// chatSettled waits until the chat runs as n pods of one template, none of them terminating
// (an old SQLite replica answers until it is gone).
func (c *Cluster) chatSettled(t *testing.T, n int) {
	t.Helper()
	c.eventually(t, 2*time.Minute, fmt.Sprintf("%d chat pods of the new template, none terminating", n), func() bool {
		out := c.get(`{range .items[*]}{.metadata.labels.pod-template-hash} {.metadata.deletionTimestamp}{"\n"}{end}`,
			"-n", ns, "get", "pods", "-l", "app.kubernetes.io/component=chat")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != n {
			return false
		}
		for _, l := range lines {
			if f := strings.Fields(l); len(f) != 1 || f[0] != strings.Fields(lines[0])[0] {
				return false
			}
		}
		return true
	})
}
