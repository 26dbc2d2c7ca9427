package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

type reasoningHandler struct {
	textHandler
	reasoning []string
	order     []string
}

func (h *reasoningHandler) OnReasoning(d string) error {
	h.reasoning = append(h.reasoning, d)
	h.order = append(h.order, "reasoning")
	return nil
}

func (h *reasoningHandler) OnText(d string) error {
	h.order = append(h.order, "text")
	return h.textHandler.OnText(d)
}

// Reasoning arrives in either field OpenAI-compatible servers use; a field holding something
// other than a string (null, an object) is no reasoning rather than a broken chunk.
const reasoningStream = `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":"Let me "},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{"reasoning":"think. "},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{"reasoning_content":null,"reasoning":{"effort":"low"}},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{"content":"Four.","reasoning_content":null},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: [DONE]

`

func TestReasoningIsReadBesideTheAnswer(t *testing.T) {
	srv := newServer(t, sse(reasoningStream))
	c := NewOpenAI(Config{Model: "m", BaseURL: srv.URL, MaxRetries: 0})
	h := &reasoningHandler{}
	resp, err := c.Stream(context.Background(), Request{Messages: []Message{{Role: "user", Content: "2+2?"}}}, h)
	testutil.NoError(t, err)
	if resp.Text != "Four." || resp.Reasoning != "Let me think. " {
		t.Errorf("text %q reasoning %q", resp.Text, resp.Reasoning)
	}
	if strings.Join(h.reasoning, "|") != "Let me |think. " || h.String() != "Four." || strings.Join(h.order, ",") != "reasoning,reasoning,text" {
		t.Errorf("handler: reasoning %q text %q order %v", h.reasoning, h.String(), h.order)
	}

	// A handler that does not take reasoning still gets the answer, and the response keeps it.
	plain := &textHandler{}
	resp, err = c.Stream(context.Background(), Request{Messages: []Message{{Role: "user", Content: "2+2?"}}}, plain)
	testutil.NoError(t, err)
	if plain.String() != "Four." || resp.Reasoning != "Let me think. " {
		t.Errorf("plain handler: text %q reasoning %q", plain.String(), resp.Reasoning)
	}
}
