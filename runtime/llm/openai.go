package llm

// The model client is openai-go's chat completions service (the SDK the design names): its
// requests, retries (connection errors, 408, 409, 429, 5xx and x-should-retry, with
// Retry-After), error types and server-sent event parsing. This file maps Agentry's messages and
// tools to the SDK's parameters and the SDK's stream back to a StreamHandler.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentry-dev/agentry/internal/platform/egress"
)

// Environment variables openai-go's NewClient reads besides the key and the base URL; the
// runtime builds only the chat completions service, so it applies them itself.
const (
	orgEnv           = "OPENAI_ORG_ID"
	projectEnv       = "OPENAI_PROJECT_ID"
	customHeadersEnv = "OPENAI_CUSTOM_HEADERS"
)

// maxRetryDelay caps the wait before a retry (backoff or the server's Retry-After).
const maxRetryDelay = 10 * time.Second

// responseHeaderTimeout fails a connection that sends no response headers (the step's own
// timeout applies on top).
const responseHeaderTimeout = 10 * time.Minute

// maxIdleConnsPerHost is how many connections to one model endpoint stay open between calls.
// The pod's concurrent runs call the same provider: with net/http's default of 2, every call
// beyond two opened a new connection (a TCP and a TLS handshake per model call) and closed it
// after.
const maxIdleConnsPerHost = 64

// AllowLinkLocalEnv, set to "true", lets the model client reach link-local and cloud metadata
// addresses, which it refuses otherwise: a model's base URL is aimed by whoever writes an
// Agent or a ModelConfig, and the pod's metadata endpoint must not answer for a model.
// Internal addresses stay allowed (a vLLM Service in the cluster is the common case).
const AllowLinkLocalEnv = "AGENTRY_MODEL_ALLOW_LINK_LOCAL"

// defaultHTTPClient is shared by every agent of the process (one connection pool).
var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	return modelHTTPClient(os.Getenv(AllowLinkLocalEnv) == "true")
})

// modelHTTPClient is the model client's transport: net/http's defaults (proxy from the
// environment included), more idle connections per host, and the egress check on every
// connection it opens: the address after DNS resolution, and metadata host names before it.
func modelHTTPClient(allowLinkLocal bool) *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{Transport: http.DefaultTransport}
	}
	t = t.Clone()
	t.ResponseHeaderTimeout = responseHeaderTimeout
	t.MaxIdleConnsPerHost = maxIdleConnsPerHost
	p := egress.Policy{AllowInternal: true, AllowLinkLocal: allowLinkLocal}
	d := p.Dialer(30 * time.Second)
	t.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		if host, _, err := net.SplitHostPort(address); err == nil && !allowLinkLocal && egress.MetadataHost(host) {
			return nil, &egress.RefusedError{Host: host, Category: egress.CategoryMetadata}
		}
		return d.DialContext(ctx, network, address)
	}
	return &http.Client{Transport: t}
}

// options are the SDK's client options for cfg.
func options(cfg Config) []option.RequestOption {
	client := cfg.HTTPClient
	if client == nil {
		client = defaultHTTPClient()
	}
	// A server asking for a longer wait than maxRetryDelay gets no retry: an agent's user would
	// rather hear that the model is busy (the SDK would wait up to 2 minutes).
	opts := []option.RequestOption{option.WithHTTPClient(client), option.WithMaxRetries(cfg.MaxRetries), option.WithMaxRetryDelay(maxRetryDelay),
		option.WithMiddleware(errorBodies)}
	if cfg.Azure != nil {
		opts = append(opts, azure.WithEndpoint(cfg.Azure.Endpoint, cfg.Azure.APIVersion))
		switch {
		case cfg.Azure.Token != "":
			opts = append(opts, azure.WithTokenCredential(staticToken(cfg.Azure.Token)))
		case cfg.APIKey != "":
			opts = append(opts, azure.WithAPIKey(cfg.APIKey))
		}
		return opts
	}
	opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if v, ok := os.LookupEnv(orgEnv); ok {
		opts = append(opts, option.WithOrganization(v))
	}
	if v, ok := os.LookupEnv(projectEnv); ok {
		opts = append(opts, option.WithProject(v))
	}
	if v, ok := os.LookupEnv(customHeadersEnv); ok {
		for _, line := range strings.Split(v, "\n") {
			if name, value, found := strings.Cut(line, ":"); found {
				opts = append(opts, option.WithHeader(strings.TrimSpace(name), strings.TrimSpace(value)))
			}
		}
	}
	return opts
}

// params are the SDK's request parameters of one streaming step.
func (o *OpenAI) params(req Request) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(o.model()),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		Messages:      make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)),
	}
	if o.cfg.MaxTokens != nil {
		p.MaxCompletionTokens = openai.Int(*o.cfg.MaxTokens)
	}
	if o.cfg.Temperature != nil {
		p.Temperature = openai.Float(*o.cfg.Temperature)
	}
	if o.cfg.TopP != nil {
		p.TopP = openai.Float(*o.cfg.TopP)
	}
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, toParam(m))
	}
	for _, t := range req.Tools {
		var params map[string]any
		_ = json.Unmarshal(t.Parameters, &params)
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: shared.FunctionParameters(params),
		}))
	}
	return p
}

// model is what the request names: the model, or on Azure the deployment (the SDK routes the
// request to /openai/deployments/{model}/…).
func (o *OpenAI) model() string {
	if o.cfg.Azure != nil && o.cfg.Azure.Deployment != "" {
		return o.cfg.Azure.Deployment
	}
	return o.cfg.Model
}

func toParam(m Message) openai.ChatCompletionMessageParamUnion {
	switch m.Role {
	case "system":
		return openai.SystemMessage(m.Content)
	case "developer":
		return openai.DeveloperMessage(m.Content)
	case "tool":
		return openai.ToolMessage(m.Content, m.ToolCallID)
	case "assistant":
		a := openai.ChatCompletionAssistantMessageParam{}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = openai.String(m.Content)
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: tc.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
			}})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
	default:
		return openai.UserMessage(m.Content)
	}
}

// newStreaming is the SDK's ChatCompletionService.NewStreaming (the same request, options,
// retries and SSE decoder) with the stream's events decoded into chunk rather than the SDK's
// ChatCompletionChunk: that type decodes every field through the SDK's reflective decoder, which
// took a third of the runtime's CPU per answer and cut generate's throughput to 0.65× of the
// runtime before openai-go (docs/runtime-footprint.md).
func (o *OpenAI) newStreaming(ctx context.Context, req Request) *ssestream.Stream[chunk] {
	var raw *http.Response
	_, err := o.svc.New(ctx, o.params(req), option.WithJSONSet("stream", true), option.WithResponseBodyInto(&raw))
	return ssestream.NewStream[chunk](ssestream.NewDecoder(raw), err)
}

// chunk is what the runtime reads of a Chat Completions stream chunk
// (openai.ChatCompletionChunk's fields of the same names).
type chunk struct {
	Choices []struct {
		Index int64 `json:"index"`
		Delta struct {
			Content   string          `json:"content"`
			ToolCalls []chunkToolCall `json:"tool_calls"`
			// ReasoningContent and Reasoning are the reasoning OpenAI-compatible servers stream
			// beside the answer (not part of OpenAI's own API, so not in the SDK's chunk type).
			ReasoningContent lenientText `json:"reasoning_content"`
			Reasoning        lenientText `json:"reasoning"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	} `json:"usage"`
}

// lenientText is a string field some servers fill with something else: null, or an object
// (e.g. a reasoning summary with effort settings). Those read as no text rather than failing
// the chunk, so a server's extension never breaks the answer it belongs to.
type lenientText string

func (t *lenientText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = lenientText(s)
	}
	return nil
}

// chunkToolCall is a fragment of a tool call in a chunk's delta.
type chunkToolCall struct {
	Index    int64  `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// errorBodies keeps the provider's message of an error answer readable by the SDK: some
// OpenAI-compatible servers answer {"error": "text"} or a message that is not a string, which
// the SDK's error type cannot hold; they are rewritten to {"error": {"message": "text"}}.
func errorBodies(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode < 400 || res.Body == nil {
		return res, err
	}
	data, rerr := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	_ = res.Body.Close()
	if rerr != nil {
		return nil, rerr
	}
	if msg, ok := oddErrorMessage(data); ok {
		data, _ = json.Marshal(map[string]any{"error": map[string]string{"message": msg}})
	}
	res.Body = io.NopCloser(bytes.NewReader(data))
	return res, nil
}

// oddErrorMessage is the message of an error body the SDK cannot decode, and true; false for
// a body it can (or one with no error at all).
func oddErrorMessage(data []byte) (string, bool) {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &body) != nil || len(body.Error) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(body.Error, &s) == nil {
		return s, true
	}
	var obj struct {
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(body.Error, &obj) != nil || len(obj.Message) == 0 || string(obj.Message) == "null" {
		return "", false
	}
	if json.Unmarshal(obj.Message, &s) == nil {
		return "", false
	}
	return string(obj.Message), true
}

// staticToken is a Microsoft Entra access token read from a Secret, handed to the SDK's Azure
// support as a token credential (the operator or an external rotator renews the Secret).
type staticToken string

func (t staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(t), ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// describeError turns the SDK's errors into messages a user can act on.
func describeError(ctx context.Context, err error, cfg Config) error {
	var modelErr *Error
	if errors.As(err, &modelErr) {
		return err
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		msg := strings.TrimSpace(apiErr.Message)
		msg = cmp.Or(msg, http.StatusText(apiErr.StatusCode))
		hint := ""
		if apiErr.StatusCode == http.StatusUnauthorized {
			hint = fmt.Sprintf(" (check %s)", cfg.keyName())
		}
		return &Error{Public: fmt.Sprintf("model request failed with status %d: %s%s", apiErr.StatusCode, msg, hint), Status: apiErr.StatusCode}
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	if errors.As(err, &typeErr) || errors.As(err, &syntaxErr) {
		return &Error{Public: "the model sent a stream event that is not a Chat Completions chunk", Cause: err}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Public: fmt.Sprintf("model request timed out after %s", cfg.Timeout)}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("model request canceled: %w", ctx.Err())
	}
	if re, ok := egress.Refused(err); ok {
		return &Error{Public: fmt.Sprintf("the model endpoint's address is refused (%s); set %s=true to allow link-local and metadata addresses", re.Error(), AllowLinkLocalEnv)}
	}
	return &Error{Public: "the model endpoint could not be reached", Cause: fmt.Errorf("model request to %s failed: %w", cfg.endpoint(), err)}
}
