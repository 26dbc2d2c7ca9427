// Package llm talks to language models through openai-go (openai.go): any OpenAI-compatible
// Chat Completions endpoint, or Azure OpenAI through the SDK's Azure support, streaming every
// answer.
package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/agentry-dev/agentry/internal/platform/defaults"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1/"

// Defaults for a model step.
const (
	DefaultTimeout    = 120 * time.Second
	DefaultMaxRetries = 2
)

// APIKeyEnv is the environment variable the API key comes from (Azure: the api-key).
const APIKeyEnv = "OPENAI_API_KEY"

// AzureTokenEnv holds a Microsoft Entra access token for provider azure-openai (the operator
// sets it from spec.model.azure.tokenSecretRef).
const AzureTokenEnv = "AGENTRY_AZURE_OPENAI_TOKEN"

// Message is one entry of the conversation sent to the model.
type Message struct {
	// ID identifies the message in conversation memory; the model never sees it.
	ID         string     `json:"id,omitempty"`
	Role       string     `json:"role"` // system, developer, user, assistant, tool
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
}

// ToolCall is a function call requested by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
	TotalTokens      int64 `json:"totalTokens"`
}

// Add sums usage.
func (u *Usage) Add(o Usage) {
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.TotalTokens += o.TotalTokens
}

// Request is one model step.
type Request struct {
	Messages []Message
	Tools    []tools.Definition
}

// Response is the complete answer of one step.
type Response struct {
	Text string
	// Reasoning is what a reasoning model streamed beside the answer (reasoning_content or
	// reasoning): shown to people, never part of Text and never sent back to the model.
	Reasoning    string
	ToolCalls    []ToolCall
	FinishReason string
	Usage        Usage
}

// StreamHandler receives the answer while it streams. Returning an error stops the stream.
type StreamHandler interface {
	// OnText receives a fragment of the answer's text.
	OnText(delta string) error
	// OnToolCallStart announces the index-th tool call of the step.
	OnToolCallStart(index int, id, name string) error
	// OnToolCallArgs receives a fragment of the index-th tool call's JSON arguments.
	OnToolCallArgs(index int, delta string) error
}

// ReasoningHandler is a StreamHandler that also hears the model's reasoning. It is a separate
// interface so handlers that have no use for reasoning (and test doubles) need not implement
// it; the reasoning is in Response.Reasoning either way.
type ReasoningHandler interface {
	// OnReasoning receives a fragment of the model's reasoning. Models send all of a step's
	// reasoning before its answer text and tool calls.
	OnReasoning(delta string) error
}

// Client is a language model.
type Client interface {
	Stream(ctx context.Context, req Request, h StreamHandler) (*Response, error)
	// ModelID names the model, e.g. gpt-4o-mini.
	ModelID() string
}

// Config configures an OpenAI-compatible client.
type Config struct {
	Model   string
	BaseURL string
	APIKey  string
	// KeyRequired makes a missing APIKey an error naming APIKeyEnv instead of a request
	// without credentials.
	KeyRequired bool
	// KeySource says where the key should have come from, for the error message.
	KeySource   string
	Temperature *float64
	TopP        *float64
	MaxTokens   *int64
	Timeout     time.Duration
	MaxRetries  int
	HTTPClient  *http.Client
	// Azure, when set, calls an Azure OpenAI resource through the SDK's Azure support instead
	// of BaseURL: APIKey is its api-key, unless Token (a Microsoft Entra access token) is set.
	Azure *AzureConfig
}

// AzureConfig says which Azure OpenAI deployment answers.
type AzureConfig struct {
	Endpoint   string // https://<resource>.openai.azure.com
	Deployment string // the deployment's name (the request's model)
	APIVersion string // e.g. 2024-10-21
	Token      string // a Microsoft Entra access token; empty: the api-key (Config.APIKey)
}

// keyName is what to check when the provider refuses the credentials.
func (c Config) keyName() string {
	if c.Azure != nil {
		return "the Azure OpenAI key or token Secret"
	}
	return APIKeyEnv
}

// endpoint names where requests go, for the log.
func (c Config) endpoint() string {
	if c.Azure != nil {
		return c.Azure.Endpoint
	}
	return c.BaseURL
}

// ErrMissingAPIKey is returned when a key is required but none is set.
var ErrMissingAPIKey = errors.New("the model API key is missing")

// OpenAI is a Client for any OpenAI-compatible Chat Completions endpoint (and Azure OpenAI).
type OpenAI struct {
	cfg Config
	svc openai.ChatCompletionService
}

// NewOpenAI builds a client. The base URL and key are taken from cfg only: callers resolve
// environment variables, so precedence is explicit. OPENAI_ORG_ID, OPENAI_PROJECT_ID and
// OPENAI_CUSTOM_HEADERS add their headers, as with openai-go.
func NewOpenAI(cfg Config) *OpenAI {
	cfg.BaseURL = cmp.Or(cfg.BaseURL, DefaultBaseURL)
	defaults.Positive(&cfg.Timeout, DefaultTimeout)
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	return &OpenAI{cfg: cfg, svc: openai.NewChatCompletionService(options(cfg)...)}
}

// ModelID implements Client.
func (o *OpenAI) ModelID() string { return o.cfg.Model }

// Stream implements Client: one streaming Chat Completions request.
func (o *OpenAI) Stream(ctx context.Context, req Request, h StreamHandler) (*Response, error) {
	if err := o.missingKey(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	stream := o.newStreaming(ctx, req)
	defer stream.Close()

	resp := &Response{}
	var text, reasoning strings.Builder
	rh, _ := h.(ReasoningHandler)
	var calls toolCalls
	for stream.Next() {
		chunk := stream.Current()
		if chunk.Usage != nil && chunk.Usage.TotalTokens > 0 {
			resp.Usage = Usage{PromptTokens: chunk.Usage.PromptTokens, CompletionTokens: chunk.Usage.CompletionTokens, TotalTokens: chunk.Usage.TotalTokens}
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue
			}
			d := choice.Delta
			// Servers name the field reasoning_content (DeepSeek, vLLM before 0.10) or reasoning
			// (vLLM, Ollama, OpenRouter); one of them per chunk.
			if r := cmp.Or(string(d.ReasoningContent), string(d.Reasoning)); r != "" {
				reasoning.WriteString(r)
				if rh != nil {
					if err := rh.OnReasoning(r); err != nil {
						return nil, err
					}
				}
			}
			if d.Content != "" {
				text.WriteString(d.Content)
				if err := h.OnText(d.Content); err != nil {
					return nil, err
				}
			}
			for _, tc := range d.ToolCalls {
				if err := calls.add(tc, h); err != nil {
					return nil, err
				}
			}
			if choice.FinishReason != "" {
				resp.FinishReason = choice.FinishReason
			}
		}
	}
	if err := stream.Err(); err != nil {
		return nil, describeError(ctx, err, o.cfg)
	}
	resp.Text = text.String()
	resp.Reasoning = reasoning.String()
	for _, st := range calls.list {
		if !st.started {
			return nil, &Error{Public: "the model sent a tool call without a function name"}
		}
		st.call.Arguments = st.args.String()
		resp.ToolCalls = append(resp.ToolCalls, st.call)
	}
	if resp.FinishReason == "" {
		return nil, &Error{Public: "the model stream ended before the answer was complete"}
	}
	return resp, nil
}

// missingKey is the error for a model that needs a key when there is none.
func (o *OpenAI) missingKey() error {
	if !o.cfg.KeyRequired || o.cfg.APIKey != "" || (o.cfg.Azure != nil && o.cfg.Azure.Token != "") {
		return nil
	}
	src := o.cfg.KeySource
	src = cmp.Or(src, "the model endpoint requires one")
	env := APIKeyEnv
	if o.cfg.Azure != nil && strings.Contains(src, "tokenSecretRef names") {
		env = AzureTokenEnv
	}
	return fmt.Errorf("%w: set %s (%s)", ErrMissingAPIKey, env, src)
}

// toolCalls gathers a stream's tool calls from their fragments, in the order they began.
type toolCalls struct {
	list    []*callState
	byIndex map[int64]*callState
}

type callState struct {
	call    ToolCall
	args    strings.Builder
	started bool
}

// add takes one fragment of a call: the handler hears of the call once it has a name (with the
// arguments that came before), then of each arguments fragment.
func (c *toolCalls) add(tc chunkToolCall, h StreamHandler) error {
	st, ok := c.byIndex[tc.Index]
	if !ok {
		if c.byIndex == nil {
			c.byIndex = map[int64]*callState{}
		}
		st = &callState{}
		c.byIndex[tc.Index] = st
		c.list = append(c.list, st)
	}
	if tc.ID != "" {
		st.call.ID = tc.ID
	}
	if tc.Function.Name != "" {
		st.call.Name += tc.Function.Name
	}
	pos := slices.Index(c.list, st)
	if !st.started && st.call.Name != "" {
		if st.call.ID == "" {
			st.call.ID = fmt.Sprintf("call_%d_%d", time.Now().UnixNano(), pos)
		}
		st.started = true
		if err := h.OnToolCallStart(pos, st.call.ID, st.call.Name); err != nil {
			return err
		}
		// Fragments that arrived before the name are replayed now.
		if pending := st.args.String(); pending != "" {
			if err := h.OnToolCallArgs(pos, pending); err != nil {
				return err
			}
		}
	}
	if frag := tc.Function.Arguments; frag != "" {
		st.args.WriteString(frag)
		if st.started {
			return h.OnToolCallArgs(pos, frag)
		}
	}
	return nil
}

// Error is a model failure. Public is what the caller may be shown (status, the provider's
// message, a hint); Cause may hold URLs, addresses and transport details and belongs in the
// log only.
type Error struct {
	Public string
	Cause  error
	// Status is the provider's HTTP status when it answered with an error.
	Status int
}

func (e *Error) Error() string {
	if e.Cause == nil {
		return e.Public
	}
	return e.Public + ": " + e.Cause.Error()
}

func (e *Error) Unwrap() error { return e.Cause }
