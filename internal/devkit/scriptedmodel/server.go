// Package scriptedmodel is an OpenAI-wire-compatible Chat Completions server whose answers
// come from a script instead of a language model. Tests and `agentry dev` (without an API key)
// point the real openai-go client at it, so every model path of the runtime runs for real:
// streaming text, tool calls, HTTP errors, broken streams and slow or hanging answers.
package scriptedmodel

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// ToolCall is a function call the scripted model makes.
type ToolCall struct {
	// ID defaults to call_<n>.
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Reply is one scripted answer.
type Reply struct {
	// Reasoning, when set, is streamed word by word before the text, as reasoning models
	// (DeepSeek, vLLM, ...) send their thinking: in the chunks' delta.reasoning_content, or
	// delta.reasoning when ReasoningField says so. A template, as Text is.
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningField names the field the reasoning travels in: reasoning_content (default)
	// or reasoning.
	ReasoningField string `json:"reasoningField,omitempty"`
	// Text is streamed word by word.
	Text string `json:"text,omitempty"`
	// ToolCalls are requested after the text.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// FinishReason defaults to "tool_calls" when there are tool calls, else "stop".
	FinishReason string `json:"finishReason,omitempty"`
	// Status, when set, answers with this HTTP status and an OpenAI error body instead.
	Status int `json:"status,omitempty"`
	// Error is the error message for Status.
	Error string `json:"error,omitempty"`
	// FailAfterChunks > 0 drops the connection after that many chunks, without [DONE].
	FailAfterChunks int `json:"failAfterChunks,omitempty"`
	// Hang never answers; the request ends only when the client goes away.
	Hang bool `json:"hang,omitempty"`
	// DelayMs waits before the first chunk; ChunkDelayMs between chunks.
	DelayMs      int `json:"delayMs,omitempty"`
	ChunkDelayMs int `json:"chunkDelayMs,omitempty"`
}

// Message is a received chat message, flattened to text.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
}

// Request is a received chat completion request.
type Request struct {
	Model         string          `json:"model"`
	Messages      []Message       `json:"messages"`
	Tools         []string        `json:"tools"`
	ToolChoice    any             `json:"toolChoice,omitempty"`
	Stream        bool            `json:"stream"`
	IncludeUsage  bool            `json:"includeUsage"`
	Authorization string          `json:"-"`
	Raw           json.RawMessage `json:"-"`
}

// Responder decides the reply to a request.
type Responder interface {
	Respond(req *Request) Reply
}

// ResponderFunc adapts a function to a Responder.
type ResponderFunc func(req *Request) Reply

// Respond implements Responder.
func (f ResponderFunc) Respond(req *Request) Reply { return f(req) }

// Options configure a Server.
type Options struct {
	// RequireAPIKey, when set, answers 401 unless "Authorization: Bearer <key>" is sent.
	RequireAPIKey string
	// Pace is the wait between streamed chunks of a reply that sets no ChunkDelayMs, so a
	// person watching sees the answer arrive word by word (agentry dev); zero streams at once.
	Pace time.Duration
}

// Server serves /v1/chat/completions and /v1/models.
type Server struct {
	responder Responder
	opts      Options
	echo      *echo.Echo
	listener  net.Listener

	mu       sync.Mutex
	requests []*Request
	calls    int
	stats    Stats
	done     chan struct{}
	// instance makes tool call ids unique across restarts, as a real model's are.
	instance string
}

// abortedKey marks a streamed answer the client stopped reading; completedKey one that was
// written in full (the client may hang up right after the last byte).
const (
	abortedKey   = "scripted.aborted"
	completedKey = "scripted.completed"
)

// Stats counts requests by how they ended.
type Stats struct {
	// InFlight requests are being answered now.
	InFlight int `json:"inFlight"`
	// Completed requests were answered in full.
	Completed int `json:"completed"`
	// Canceled requests ended because the client went away first.
	Canceled int `json:"canceled"`
}

// Stats returns the request counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Start listens on addr (e.g. 127.0.0.1:0) and serves in the background.
func Start(addr string, r Responder, opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("failed to listen on %q: %w", addr, err)
	}
	s := &Server{responder: r, opts: opts, listener: ln, done: make(chan struct{}), instance: strconv.FormatInt(time.Now().UnixNano()%1e9, 36)}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.POST("/v1/chat/completions", s.chatCompletions)
	e.POST("/chat/completions", s.chatCompletions)
	e.GET("/v1/models", s.models)
	// Inspection routes for tests that run the model as a separate process.
	e.GET("/_scripted/requests", func(c echo.Context) error { return c.JSON(http.StatusOK, s.Requests()) })
	e.GET("/_scripted/stats", func(c echo.Context) error { return c.JSON(http.StatusOK, s.Stats()) })
	e.Listener = ln
	s.echo = e
	go func() {
		defer close(s.done)
		_ = e.Start("")
	}()
	return s, nil
}

// URL is the base URL to give an OpenAI client (ends in /v1).
func (s *Server) URL() string { return "http://" + s.listener.Addr().String() + "/v1" }

// Requests returns the requests received so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// Reset forgets the recorded requests.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.echo.Shutdown(ctx)
	<-s.done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func (s *Server) models(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{
		{"id": "scripted", "object": "model", "owned_by": "agentry"},
	}})
}

type wireRequest struct {
	Model         string            `json:"model"`
	Messages      []json.RawMessage `json:"messages"`
	Tools         []wireTool        `json:"tools"`
	ToolChoice    any               `json:"tool_choice"`
	Stream        bool              `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func openAIError(c echo.Context, status int, typ, msg string) error {
	return c.JSON(status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil, "param": nil}})
}

func (s *Server) chatCompletions(c echo.Context) error {
	if s.opts.RequireAPIKey != "" && c.Request().Header.Get("Authorization") != "Bearer "+s.opts.RequireAPIKey {
		return openAIError(c, http.StatusUnauthorized, "invalid_request_error", "Incorrect API key provided.")
	}
	req, invalid := decodeRequest(c.Request())
	if invalid != "" {
		return openAIError(c, http.StatusBadRequest, "invalid_request_error", invalid)
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.calls++
	seq := s.calls
	s.stats.InFlight++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.stats.InFlight--
		if done, _ := c.Get(completedKey).(bool); !done && (c.Request().Context().Err() != nil || c.Get(abortedKey) != nil) {
			s.stats.Canceled++
		} else {
			s.stats.Completed++
		}
	}()

	reply := s.responder.Respond(req)
	if reply.ChunkDelayMs == 0 && s.opts.Pace > 0 {
		reply.ChunkDelayMs = int(s.opts.Pace / time.Millisecond)
	}
	ctx := c.Request().Context()
	if !sleep(ctx, time.Duration(reply.DelayMs)*time.Millisecond) {
		return nil
	}
	if reply.Hang {
		<-ctx.Done()
		return nil
	}
	if reply.Status != 0 {
		msg := reply.Error
		msg = cmp.Or(msg, http.StatusText(reply.Status))
		return openAIError(c, reply.Status, "server_error", msg)
	}
	for i := range reply.ToolCalls {
		reply.ToolCalls[i].ID = cmp.Or(reply.ToolCalls[i].ID, fmt.Sprintf("call_%s_%d_%d", s.instance, seq, i+1))
	}
	if reply.FinishReason == "" {
		reply.FinishReason = "stop"
		if len(reply.ToolCalls) > 0 {
			reply.FinishReason = "tool_calls"
		}
	}
	id := fmt.Sprintf("chatcmpl-scripted-%d", seq)
	if !req.Stream {
		c.Set(completedKey, true)
		return c.JSON(http.StatusOK, completion(id, req, reply))
	}
	return s.stream(c, id, req, reply)
}

// decodeRequest reads a Chat Completions request; invalid says what is wrong with one that is.
func decodeRequest(r *http.Request) (req *Request, invalid string) {
	var raw json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		return nil, "invalid JSON body: " + err.Error()
	}
	var wr wireRequest
	if err := json.Unmarshal(raw, &wr); err != nil {
		return nil, err.Error()
	}
	if wr.Model == "" || len(wr.Messages) == 0 {
		return nil, "model and messages are required"
	}
	req = &Request{
		Model: wr.Model, Stream: wr.Stream, ToolChoice: wr.ToolChoice, Raw: raw,
		Authorization: r.Header.Get("Authorization"),
		IncludeUsage:  wr.StreamOptions != nil && wr.StreamOptions.IncludeUsage,
	}
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	for _, m := range wr.Messages {
		var wm wireMessage
		if err := json.Unmarshal(m, &wm); err != nil {
			return nil, "invalid message: " + err.Error()
		}
		msg := Message{Role: wm.Role, Content: contentText(wm.Content), ToolCallID: wm.ToolCallID}
		for _, tc := range wm.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, ""
}

func contentText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
