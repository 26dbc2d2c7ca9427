package model

// The Chat Completions wire protocol, as much of it as the runtime speaks: one streaming
// request (POST {baseURL}chat/completions, server-sent events back), with openai-go's retry
// rules. The runtime used openai-go for this one call; the SDK's package initialisation
// registers every type of the whole API, which made it the largest part of every runtime pod's
// binary and resident memory (docs/runtime-footprint.md). testdata/request.golden.json is the
// request openai-go v3.96.0 sent for the same input, and model_test.go holds this client to it
// and to the SDK's retry and error behaviour.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Environment defaults openai-go applied to every request (DefaultClientOptions); the base URL
// and the key always come from Config.
const (
	orgEnv           = "OPENAI_ORG_ID"
	projectEnv       = "OPENAI_PROJECT_ID"
	customHeadersEnv = "OPENAI_CUSTOM_HEADERS"
)

const (
	// maxRetryDelay caps the backoff between attempts; a server asking for a longer wait
	// (Retry-After) gets no retry.
	maxRetryDelay = 10 * time.Second
	// responseHeaderTimeout fails a connection that sends no response headers (the SDK's
	// default client; the step's own timeout applies on top).
	responseHeaderTimeout = 10 * time.Minute
	// maxEventBytes bounds one server-sent event (the SDK's scanner limit).
	maxEventBytes = bufio.MaxScanTokenSize << 9
)

// defaultHTTPClient is openai-go's default client, built on first use.
var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.ResponseHeaderTimeout = responseHeaderTimeout
		return &http.Client{Transport: t}
	}
	return &http.Client{Transport: http.DefaultTransport}
})

// chatRequest is the request body.
type chatRequest struct {
	Messages            []chatMessage `json:"messages"`
	Model               string        `json:"model"`
	MaxCompletionTokens *int64        `json:"max_completion_tokens,omitempty"`
	Temperature         *float64      `json:"temperature,omitempty"`
	TopP                *float64      `json:"top_p,omitempty"`
	StreamOptions       streamOptions `json:"stream_options"`
	Tools               []chatTool    `json:"tools,omitempty"`
	Stream              bool          `json:"stream"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Content    *string        `json:"content,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Role       string         `json:"role"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Function chatFunction `json:"function"`
	Type     string       `json:"type"`
}

type chatFunction struct {
	Arguments string `json:"arguments"`
	Name      string `json:"name"`
}

type chatTool struct {
	Function chatFunctionDef `json:"function"`
	Type     string          `json:"type"`
}

type chatFunctionDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// chatChunk is one streamed event.
type chatChunk struct {
	Choices []struct {
		Index int64 `json:"index"`
		Delta struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int64  `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	} `json:"usage"`
}

// apiError is a non-2xx answer: the status and the provider's message.
type apiError struct {
	StatusCode int
	Message    string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("status %d: %s", e.StatusCode, e.Message)
}

// streamError is an error event inside a 200 stream.
type streamError struct{ message string }

func (e *streamError) Error() string { return e.message }

// endpoint is the chat completions URL of a base URL: like the SDK, a base path without a
// trailing slash gets one, so https://host/v1 means https://host/v1/chat/completions.
func endpoint(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("failed to parse the base URL: %w", err)
	}
	if u.Path != "" && !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.ResolveReference(&url.URL{Path: "chat/completions"}).String(), nil
}

// envHeaders are the headers openai-go took from the environment.
func envHeaders(getenv func(string) (string, bool)) http.Header {
	h := http.Header{}
	if v, ok := getenv(orgEnv); ok {
		h.Set("OpenAI-Organization", v)
	}
	if v, ok := getenv(projectEnv); ok {
		h.Set("OpenAI-Project", v)
	}
	if v, ok := getenv(customHeadersEnv); ok {
		for _, line := range strings.Split(v, "\n") {
			if name, value, found := strings.Cut(line, ":"); found {
				h.Set(strings.TrimSpace(name), strings.TrimSpace(value))
			}
		}
	}
	return h
}

func (o *OpenAI) body(req Request) ([]byte, error) {
	body := chatRequest{
		Model:               o.cfg.Model,
		MaxCompletionTokens: o.cfg.MaxTokens,
		Temperature:         o.cfg.Temperature,
		TopP:                o.cfg.TopP,
		StreamOptions:       streamOptions{IncludeUsage: true},
		Stream:              true,
		Messages:            make([]chatMessage, 0, len(req.Messages)),
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, toWire(m))
	}
	for _, t := range req.Tools {
		var params map[string]any
		_ = json.Unmarshal(t.Parameters, &params)
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		body.Tools = append(body.Tools, chatTool{Type: "function", Function: chatFunctionDef{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return json.Marshal(body)
}

func toWire(m Message) chatMessage {
	content := m.Content
	switch m.Role {
	case "system", "developer", "tool":
		return chatMessage{Role: m.Role, Content: &content, ToolCallID: m.ToolCallID}
	case "assistant":
		a := chatMessage{Role: "assistant"}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content = &content
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, chatToolCall{ID: tc.ID, Type: "function", Function: chatFunction{Name: tc.Name, Arguments: tc.Arguments}})
		}
		return a
	default:
		return chatMessage{Role: "user", Content: &content}
	}
}

// post sends the request, retrying what openai-go retried (connection errors, 408, 409, 429,
// 5xx, or what x-should-retry says) up to MaxRetries times, and returns a 2xx response.
func (o *OpenAI) post(ctx context.Context, body []byte) (*http.Response, error) {
	if o.urlErr != nil {
		return nil, o.urlErr
	}
	client := o.cfg.HTTPClient
	if client == nil {
		client = defaultHTTPClient()
	}
	var res *http.Response
	var err error
	for attempt := 0; ; attempt++ {
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		for k, v := range o.headers {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", "agentry")
		if o.cfg.APIKey != "" {
			req.Header.Set("Authorization", "Bearer "+o.cfg.APIKey)
		}
		res, err = client.Do(req)
		if ctx.Err() != nil {
			if res != nil {
				_ = res.Body.Close()
			}
			return nil, ctx.Err()
		}
		if !shouldRetry(res, err) || attempt >= o.cfg.MaxRetries {
			break
		}
		delay, again := retryDelay(res, attempt)
		if !again {
			break
		}
		if res != nil {
			_ = res.Body.Close()
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 400 {
		data, rerr := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if rerr != nil {
			return nil, rerr
		}
		return nil, &apiError{StatusCode: res.StatusCode, Message: errorMessage(data)}
	}
	return res, nil
}

func shouldRetry(res *http.Response, err error) bool {
	if err != nil || res == nil {
		return true
	}
	switch res.Header.Get("x-should-retry") {
	case "true":
		return true
	case "false":
		return false
	}
	return res.StatusCode == http.StatusRequestTimeout || res.StatusCode == http.StatusConflict ||
		res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= http.StatusInternalServerError
}

// retryDelay is what the server asks for (Retry-After-Ms, Retry-After in seconds or as a
// date; a wait beyond maxRetryDelay ends the retries), else 0.5 s doubling per attempt up to
// maxRetryDelay, less up to a quarter of jitter.
func retryDelay(res *http.Response, attempt int) (time.Duration, bool) {
	if res != nil {
		for _, h := range []struct {
			name string
			unit time.Duration
		}{{"Retry-After-Ms", time.Millisecond}, {"Retry-After", time.Second}} {
			v := res.Header.Get(h.name)
			if v == "" {
				continue
			}
			n, err := strconv.ParseFloat(v, 64)
			if errors.Is(err, strconv.ErrRange) && math.IsInf(n, 1) {
				return 0, false
			}
			if err == nil {
				if math.IsNaN(n) || math.IsInf(n, 0) || n < 0 {
					continue
				}
				if n > float64(maxRetryDelay)/float64(h.unit) {
					return 0, false
				}
				return time.Duration(n * float64(h.unit)), true
			}
			if h.unit == time.Second {
				if t, err := time.Parse(time.RFC1123, v); err == nil {
					d := time.Until(t)
					if d > maxRetryDelay {
						return 0, false
					}
					return max(d, 0), true
				}
			}
		}
	}
	delay := maxRetryDelay
	if backoff := 0.5 * float64(time.Second) * math.Pow(2, float64(attempt)); backoff < float64(maxRetryDelay) {
		delay = time.Duration(backoff)
	}
	if jitter := int64(delay / 4); jitter > 0 {
		delay -= time.Duration(rand.Int64N(jitter))
	}
	return delay, true
}

// errorMessage is the provider's message of an error body ({"error": {"message": …}} or
// {"error": "…"}); empty when there is none.
func errorMessage(data []byte) string {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &body) != nil || len(body.Error) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(body.Error, &s) == nil {
		return s
	}
	var obj struct {
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(body.Error, &obj) != nil || len(obj.Message) == 0 || string(obj.Message) == "null" {
		return ""
	}
	if json.Unmarshal(obj.Message, &s) == nil {
		return s
	}
	return string(obj.Message)
}

// events reads server-sent events: data lines joined, comments and other fields skipped, an
// event ends at a blank line (one without it at the end of the stream is dropped).
type events struct {
	scn *bufio.Scanner
}

func newEvents(r io.Reader) *events {
	scn := bufio.NewScanner(r)
	scn.Buffer(nil, maxEventBytes)
	return &events{scn: scn}
}

// next returns the data of the next event; ok is false at the end of the stream.
func (e *events) next() (data []byte, ok bool) {
	for e.scn.Scan() {
		line := e.scn.Bytes()
		if len(line) == 0 {
			if len(data) == 0 {
				continue
			}
			return data, true
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		if string(name) == "data" {
			data = append(data, value...)
			data = append(data, '\n')
		}
	}
	return nil, false
}

func (e *events) err() error { return e.scn.Err() }

// chunk decodes one event: io.EOF after [DONE], a streamError for an error event.
func decodeChunk(data []byte) (*chatChunk, error) {
	if bytes.HasPrefix(data, []byte("[DONE]")) {
		return nil, io.EOF
	}
	var probe struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &probe) == nil && len(probe.Error) > 0 {
		msg := string(probe.Error)
		var s string
		if json.Unmarshal(probe.Error, &s) == nil {
			msg = s
		}
		return nil, &streamError{message: "received error while streaming: " + msg}
	}
	var c chatChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, &Error{Public: "the model sent a stream event that is not a Chat Completions chunk", Cause: err}
	}
	return &c, nil
}
