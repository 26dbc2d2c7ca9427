package process

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// How each of the README's shell blocks is checked.
type blockRun int

const (
	// runAfterDev: run as printed, in order, against the make dev server the test started.
	runAfterDev blockRun = iota
	// startsDev: make dev itself (the test starts the binary's dev command, as make dev execs).
	startsDev
	// startsProduction: the production agentry chat, run as printed against a fresh PostgreSQL.
	startsProduction
	// runAfterProduction: run as printed against that production chat.
	runAfterProduction
	// elsewhere: checked by another test, or not runnable here (why says which).
	elsewhere
)

// readmeBlocks are the README's shell blocks in order, by their first line. A new or changed
// block fails the test until it is listed here with how it is checked.
var readmeBlocks = []struct {
	first string
	run   blockRun
	why   string
}{
	{"helm install agentry charts/agentry --namespace agentry-system --create-namespace", elsewhere, "test/cluster runs it verbatim on a real node"},
	{`kubectl patch modelconfig default --type merge -p '{"spec":{"baseURL":"http://vllm.models:8000/v1","model":"Qwen/Qwen3-8B"}}'`, elsewhere, "test/cluster runs it with the scripted model's URL and model"},
	{"make images                                            # bin/images/agentry-images.tar: both images, tag = chart appVersion", elsewhere, "make test-cluster builds and loads the images"},
	{`kubectl create secret generic chef-auth --from-literal=Authorization="Bearer $(openssl rand -hex 24)"`, elsewhere, "needs an Ingress controller and TLS; the operator tests cover exposure"},
	{"make images        # bin/images/agentry-images.tar: ghcr.io/agentry-dev/agentry:0.1.0 and …/agentry-runtime:0.1.0", elsewhere, "needs a container engine; make test-cluster runs make images"},
	{"make dev", startsDev, ""},
	{"OPENAI_API_KEY=sk-... make dev                                          # OpenAI (needs a real key; not run in CI)", elsewhere, "needs a real key"},
	{"curl localhost:4111/api/agents", runAfterDev, ""},
	{"make build                                         # bin/agentry (and bin/agentry-runtime, the pods' build)", elsewhere, "a placeholder path; TestServe runs agentry serve"},
	{"curl localhost:4111/api/agents/sous-chef            # the server's tools, with their input schemas", runAfterDev, ""},
	{`curl -N -X POST localhost:4111/api/agents/chef/ag-ui -H 'Content-Type: application/json' -d '{"messages":[{"id":"m1","role":"user","content":"I have eggs and rice. What can I cook?"}]}'`, runAfterDev, ""},
	{"curl localhost:4111/a2a/weather/.well-known/agent-card.json", runAfterDev, ""},
	{"bin/agentry dev --dir config/samples --dir config/samples-a2a", elsewhere, "TestA2ASampleOnDev runs it as printed"},
	{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 make dev   # agentry dev to a local collector", elsewhere, "the tracing test runs agentry dev with a real collector"},
	{`curl -X POST localhost:4111/api/agents/weather/generate -H 'Content-Type: application/json' -d '{"messages":"What is the weather in Paris?","memory":{"thread":"trip-1","resource":"alice"}}'`, runAfterDev, ""},
	{`kubectl -n agentry-system create secret generic chat-oidc --from-literal=clientSecret='<client secret>'`, elsewhere, "TestReadmeSSOInstall runs it against a real API server and identity provider"},
	{`export DATABASE_URL="${DATABASE_URL:-postgres://agentry:agentry@localhost:5432/agentry?sslmode=disable}"`, startsProduction, ""},
	{`curl -X POST localhost:8080/chat/v1/invitations -H "apikey: $(cat chat-data/api-key)" -H 'Content-Type: application/json' \`, runAfterProduction, ""},
	{"KEY=$(cat .agentry/chat-api-key)", runAfterDev, ""},
	{"KEY=$(cat .agentry/chat-api-key)", runAfterDev, ""},
	{`curl -X POST localhost:4111/chat/v1/messages -H "Authorization: Bearer $ALICE" -H 'Content-Type: application/json' \`, runAfterDev, ""},
	{"kubectl get agents          # short name: ag", elsewhere, "a sample of output; test/cluster runs kubectl get modelconfigs,agents"},
}

// curlFails makes every curl of a block fail on an HTTP error (its body still shown), so a
// block that "runs" but answers 4xx fails the test.
const curlFails = `set -euo pipefail
curl() { command curl --fail-with-body -sS "$@"; echo; }
`

// TestReadmeShellBlocks: every shell block of the README runs as printed, in order, against
// what the block before it started: make dev's server for the local blocks (the curl examples
// of the agents and the chat), a fresh agentry chat on PostgreSQL for the production block,
// and that chat for its first admin's invitation. Blocks that need a cluster, a real key or a
// container engine name the test that covers them.
func TestReadmeShellBlocks(t *testing.T) {
	blocks := shellBlocks(t)
	if len(blocks) != len(readmeBlocks) {
		t.Fatalf("the README has %d shell blocks, the test knows %d: list the new one in readmeBlocks", len(blocks), len(readmeBlocks))
	}
	for i, b := range blocks {
		if first := strings.SplitN(b, "\n", 2)[0]; first != readmeBlocks[i].first {
			t.Fatalf("README shell block %d starts %q, the test expects %q: say in readmeBlocks how it is checked", i+1, first, readmeBlocks[i].first)
		}
	}

	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	testutil.Check(t, err)
	testutil.Check(t, os.Symlink(filepath.Join(root, "config"), filepath.Join(dir, "config")))
	// make dev: build, then exec agentry dev in the repository (its samples, .agentry/).
	testutil.Start(t, binary, dir, nil, devReady, "dev")
	var local []string
	for i, b := range blocks {
		if readmeBlocks[i].run == runAfterDev {
			local = append(local, "echo '>>> README shell block "+strconv.Itoa(i+1)+"'\n"+b)
		}
	}
	runBlocks(t, dir, nil, strings.Join(local, "\n"))

	t.Run("production chat on PostgreSQL", func(t *testing.T) { productionBlocks(t, blocks) })
}

// productionBlocks runs the production agentry chat block as printed against a fresh PostgreSQL
// (bin/agentry is this test's binary), then its first-admin block, and accepts the invitation.
func productionBlocks(t *testing.T, blocks []string) {
	pg := testutil.StartPostgres(t)
	dir := t.TempDir()
	testutil.Check(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	testutil.Check(t, os.Symlink(binary, filepath.Join(dir, "bin", "agentry")))
	var server, invite string
	for i, b := range blocks {
		switch readmeBlocks[i].run {
		case startsProduction:
			server = b
		case runAfterProduction:
			invite = b
		}
	}
	cmd := exec.Command("bash", "-c", curlFails+server)
	cmd.Dir = dir
	cmd.Env = append(testutil.CleanEnv(), "DATABASE_URL="+pg.URL)
	// Its own process group: the block's last command is the server, under bash.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var banner strings.Builder
	p, _, err := testutil.Launch(cmd, `First admin: (.*)`, 90*time.Second, func(line string) { banner.WriteString(line + "\n") })
	testutil.Check(t, err)
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		p.Stop()
	})
	if !strings.Contains(banner.String(), "Agentry chat: http://localhost:8080/chat/v1 (storage postgres, media chat-data/media)") {
		t.Errorf("the production banner:\n%s", banner.String())
	}
	out := runBlocks(t, dir, nil, invite)
	var inv struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &inv); err != nil || inv.Code == "" {
		t.Fatalf("the invitation block's answer: %s", out)
	}
	res, err := http.Post("http://127.0.0.1:8080/chat/v1/auth/invitation/accept", "application/json",
		strings.NewReader(`{"code":"`+inv.Code+`","password":"a first admin's password"}`))
	testutil.Check(t, err)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("accepting the first admin's invitation: %d", res.StatusCode)
	}
}

// runBlocks runs script with bash in dir (curl failing on HTTP errors) and returns its output.
func runBlocks(t *testing.T, dir string, env []string, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", curlFails+script)
	cmd.Dir = dir
	cmd.Env = append(testutil.CleanEnv(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("README shell blocks failed: %v\n%s", err, out)
	}
	return string(out)
}

// shellBlocks are the README's ```sh blocks, in order.
func shellBlocks(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	testutil.Check(t, err)
	var out []string
	for _, m := range regexp.MustCompile("(?ms)^```(?:sh|bash|shell|console)\n(.*?)^```").FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}
