package scriptedmodel

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// countUsage approximates tokens as words, which is all tests need: stable, non-zero numbers.
func countUsage(req *Request, reply Reply) usage {
	p := 0
	for _, m := range req.Messages {
		p += len(strings.Fields(m.Content)) + 1
	}
	c := len(strings.Fields(reply.Text)) + len(strings.Fields(reply.Reasoning))
	for _, tc := range reply.ToolCalls {
		c += 1 + len(strings.Fields(tc.Arguments))
	}
	return usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
}

// The delta fields reasoning travels in; servers use one or the other.
const (
	ReasoningContentField = "reasoning_content"
	ReasoningField        = "reasoning"
)

// reasoningField is the field reply's reasoning is sent in.
func reasoningField(reply Reply) string {
	if reply.ReasoningField == ReasoningField {
		return ReasoningField
	}
	return ReasoningContentField
}

func wireToolCalls(calls []ToolCall) []map[string]any {
	out := make([]map[string]any, 0, len(calls))
	for _, tc := range calls {
		out = append(out, map[string]any{
			"id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments},
		})
	}
	return out
}

func completion(id string, req *Request, reply Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	if reply.Reasoning != "" {
		msg[reasoningField(reply)] = reply.Reasoning
	}
	if len(reply.ToolCalls) > 0 {
		msg["tool_calls"] = wireToolCalls(reply.ToolCalls)
		if reply.Text == "" {
			msg["content"] = nil
		}
	}
	return map[string]any{
		"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": reply.FinishReason}},
		"usage":   countUsage(req, reply),
	}
}

// splitWords splits text into chunks that keep their leading spaces, so joining them
// restores the text exactly.
func splitWords(text string) []string {
	var out []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' && text[i-1] != ' ' {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func (s *Server) stream(c echo.Context, id string, req *Request, reply Reply) error {
	w := c.Response()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	ctx := c.Request().Context()
	created := time.Now().Unix()
	sent := 0

	// write sends one chunk; it reports false when the stream must stop here.
	write := func(choices []map[string]any, extra map[string]any) bool {
		if reply.FailAfterChunks > 0 && sent >= reply.FailAfterChunks {
			// Abort the connection without the terminating chunk, as a crashed upstream would;
			// net/http recognises this panic and closes the connection quietly.
			panic(http.ErrAbortHandler)
		}
		if sent > 0 && !sleep(ctx, time.Duration(reply.ChunkDelayMs)*time.Millisecond) {
			c.Set(abortedKey, true)
			return false
		}
		chunk := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "choices": choices}
		for k, v := range extra {
			chunk[k] = v
		}
		b, _ := json.Marshal(chunk)
		if _, err := w.Write([]byte("data: " + string(b) + "\n\n")); err != nil {
			c.Set(abortedKey, true)
			return false
		}
		w.Flush()
		sent++
		if ctx.Err() != nil {
			c.Set(abortedKey, true)
			return false
		}
		return true
	}
	delta := func(d map[string]any, finish any) []map[string]any {
		return []map[string]any{{"index": 0, "delta": d, "finish_reason": finish}}
	}

	if !write(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil) {
		return nil
	}
	for _, word := range splitWords(reply.Reasoning) {
		if !write(delta(map[string]any{reasoningField(reply): word}, nil), nil) {
			return nil
		}
	}
	for _, word := range splitWords(reply.Text) {
		if !write(delta(map[string]any{"content": word}, nil), nil) {
			return nil
		}
	}
	for i, tc := range reply.ToolCalls {
		head := map[string]any{"index": i, "id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": ""}}
		if !write(delta(map[string]any{"tool_calls": []any{head}}, nil), nil) {
			return nil
		}
		// Split the arguments in two, as real models stream them in fragments.
		half := len(tc.Arguments) / 2
		for _, part := range []string{tc.Arguments[:half], tc.Arguments[half:]} {
			if part == "" {
				continue
			}
			frag := map[string]any{"index": i, "function": map[string]any{"arguments": part}}
			if !write(delta(map[string]any{"tool_calls": []any{frag}}, nil), nil) {
				return nil
			}
		}
	}
	if !write(delta(map[string]any{}, reply.FinishReason), nil) {
		return nil
	}
	if req.IncludeUsage {
		if !write([]map[string]any{}, map[string]any{"usage": countUsage(req, reply)}) {
			return nil
		}
	}
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	w.Flush()
	c.Set(completedKey, true)
	return nil
}
