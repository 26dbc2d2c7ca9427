package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/registry"
)

// fuzzEntry is an agent with an empty in-memory store, so bodies naming a thread go the whole
// way through recall.
var fuzzEntry = sync.OnceValue(func() *registry.Entry {
	return &registry.Entry{Agent: &agent.Agent{ID: "fuzz"}, Memory: memory.NewInMemory(), LastMessages: 20}
})

// FuzzParseGenerate checks the generate (and stream) body parser: a rejected body is a 400 with a
// message (the store is empty and healthy, so no 403 or 500), and an accepted one is a runnable request whose messages parse back unchanged.
func FuzzParseGenerate(f *testing.F) {
	for _, s := range []string{
		`{"messages":"What is the weather in Paris?"}`,
		`{"messages":["one","two"],"maxSteps":3,"runId":"r1"}`,
		`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},{"role":"assistant","content":""}]}`,
		`{"messages":"hi","memory":{"thread":{"id":"t1"},"resource":"alice"}}`,
		`{"messages":"hi","threadId":"t2","resourceId":"bob"}`,
		`{"messages":"hi","memory":{"resource":"alice"}}`,
		`{"messages":[{"role":"tool","content":"x"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"image"}]}]}`,
		`{"messages":"   "}`,
		`{"messages":[],"maxSteps":-1}`,
		`{"messages":"x"} trailing`,
		`[1,2,3]`,
		"",
		"{\"messages\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := echo.New()
		req := httptest.NewRequest(http.MethodPost, "/api/agents/fuzz/generate", bytes.NewReader(body))
		req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
		c := e.NewContext(req, httptest.NewRecorder())
		c.Set("agentry.agent", fuzzEntry())

		in, err := (&Server{}).parseGenerate(c)
		if err != nil {
			var he *echo.HTTPError
			if !errors.As(err, &he) || he.Code != http.StatusBadRequest {
				t.Fatalf("want a 400, got %T %v", err, err)
			}
			if msg, ok := he.Message.(string); !ok || strings.TrimSpace(msg) == "" {
				t.Fatalf("400 without a message: %#v", he.Message)
			}
			return
		}
		if len(in.Messages) == 0 || in.RunID == "" || in.MaxSteps < 0 {
			t.Fatalf("accepted a request that cannot run: %+v", in)
		}
		for i, m := range in.Messages {
			if m.Role != "user" && m.Role != "assistant" && m.Role != "system" {
				t.Fatalf("message %d has role %q", i, m.Role)
			}
		}
		if in.Memory != nil {
			if in.Memory.Thread == "" || len(in.Fresh) != len(in.Messages) {
				t.Fatalf("memory request without a thread or with lost messages: %+v", in)
			}
			for i, m := range in.Fresh {
				if m.ID == "" || m.ID != in.Messages[i].ID {
					t.Fatalf("fresh message %d has no id to be stored under", i)
				}
			}
		} else if in.Fresh != nil {
			t.Fatal("fresh messages without memory")
		}

		again, err := parseMessages(wireGenerateMessages(t, in.Messages))
		if err != nil {
			t.Fatalf("parsed messages do not parse again: %v", err)
		}
		for i := range again {
			if again[i].Role != in.Messages[i].Role || again[i].Content != in.Messages[i].Content {
				t.Fatalf("message %d changed: %+v then %+v", i, in.Messages[i], again[i])
			}
		}
	})
}

func wireGenerateMessages(t *testing.T, msgs []llm.Message) json.RawMessage {
	t.Helper()
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	out := make([]msg, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, msg{Role: m.Role, Content: m.Content})
	}
	b, err := json.Marshal(out)
	testutil.NoError(t, err)
	return b
}
