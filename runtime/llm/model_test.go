package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/platform/egress"
	"github.com/agentry-dev/agentry/runtime/tools"
)

type textHandler struct{ strings.Builder }

func (h *textHandler) OnText(d string) error                     { h.WriteString(d); return nil }
func (h *textHandler) OnToolCallStart(int, string, string) error { return nil }
func (h *textHandler) OnToolCallArgs(int, string) error          { return nil }

const okStream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n" +
	"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}\n\ndata: [DONE]\n\n"

// server answers each request with the next reply (the last one repeats) and records them.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
	bodies   [][]byte
}

type reply struct {
	status int
	ctype  string
	body   string
	header map[string]string
}

func newServer(t *testing.T, replies ...reply) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.requests)
		s.requests = append(s.requests, r)
		s.bodies = append(s.bodies, data)
		s.mu.Unlock()
		rep := replies[min(n, len(replies)-1)]
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", rep.ctype)
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func sse(body string) reply { return reply{status: 200, ctype: "text/event-stream", body: body} }

func every() Request {
	return Request{
		Messages: []Message{{Role: "system", Content: "sys"}, {Role: "developer", Content: "dev"}, {Role: "user", Content: "u"},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "f", Arguments: `{"a":1}`}}}, {Role: "tool", Content: "r", ToolCallID: "c1"},
			{Role: "assistant", Content: "done"}, {Role: "assistant", Content: "x", ToolCalls: []ToolCall{{ID: "c2", Name: "g", Arguments: `{}`}}}, {Role: "assistant"}},
		Tools: []tools.Definition{{Name: "f", Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}}}`)}, {Name: "g"}},
	}
}

// The request carries every message, tool and setting as the Chat Completions API defines them
// (wantRequest: what openai-go v3.96.0 sent for this input when the runtime still had its own
// client), with the key, the environment's headers and the base URL's path.
func TestRequestIsWhatOpenAIGoSent(t *testing.T) {
	t.Setenv("OPENAI_ORG_ID", "org")
	t.Setenv("OPENAI_PROJECT_ID", "proj")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-A: 1\nX-B:2")
	t.Setenv("OPENAI_BASE_URL", "http://elsewhere.invalid/") // Config's base URL wins
	s := newServer(t, sse(okStream))
	temp, topP, maxTokens := 0.2, 0.9, int64(50)
	c := NewOpenAI(Config{Model: "m", BaseURL: s.URL + "/v1", APIKey: "sk-1", Temperature: &temp, TopP: &topP, MaxTokens: &maxTokens})
	resp, err := c.Stream(context.Background(), every(), &textHandler{})
	testutil.Check(t, err)
	if resp.Text != "hi" || resp.FinishReason != "stop" || resp.Usage != (Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}) {
		t.Errorf("response %+v", resp)
	}
	r := s.requests[0]
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		t.Errorf("%s %s", r.Method, r.URL)
	}
	for k, v := range map[string]string{"Authorization": "Bearer sk-1", "Content-Type": "application/json", "Accept": "application/json",
		"OpenAI-Organization": "org", "OpenAI-Project": "proj", "X-A": "1", "X-B": "2"} {
		if got := r.Header.Get(k); got != v {
			t.Errorf("header %s: %q, want %q", k, got, v)
		}
	}
	var want, got any
	_ = json.Unmarshal([]byte(wantRequest), &want)
	testutil.Check(t, json.Unmarshal(s.bodies[0], &got))
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	if string(w) != string(g) {
		t.Errorf("request body differs:\n got %s\nwant %s", g, w)
	}
}

const wantRequest = `{"max_completion_tokens":50,"messages":[{"content":"sys","role":"system"},{"content":"dev","role":"developer"},{"content":"u","role":"user"},{"role":"assistant","tool_calls":[{"function":{"arguments":"{\"a\":1}","name":"f"},"id":"c1","type":"function"}]},{"content":"r","role":"tool","tool_call_id":"c1"},{"content":"done","role":"assistant"},{"content":"x","role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"g"},"id":"c2","type":"function"}]},{"content":"","role":"assistant"}],"model":"m","stream":true,"stream_options":{"include_usage":true},"temperature":0.2,"tools":[{"function":{"description":"d","name":"f","parameters":{"properties":{"a":{"type":"integer"}},"type":"object"}},"type":"function"},{"function":{"description":"","name":"g","parameters":{"properties":{},"type":"object"}},"type":"function"}],"top_p":0.9}`

// Without a key no Authorization header is sent (an endpoint that needs none), whatever
// OPENAI_API_KEY holds: the caller resolved it.
func TestNoKeyNoAuthorization(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-env")
	s := newServer(t, sse(okStream))
	if _, err := NewOpenAI(Config{Model: "m", BaseURL: s.URL + "/v1/"}).Stream(context.Background(), every(), &textHandler{}); err != nil {
		t.Fatal(err)
	}
	if got := s.requests[0].Header.Get("Authorization"); got != "" {
		t.Errorf("Authorization %q", got)
	}
}

// Errors, retries and stream endings behave as they did with openai-go.
func TestErrorsAndRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replies  []reply
		retries  int
		requests int
		err      string
	}{
		{"401 names the key", []reply{{401, "application/json", `{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}`, nil}}, 2, 1,
			"model request failed with status 401: Incorrect API key (check OPENAI_API_KEY)"},
		{"5xx retried, status text without a message", []reply{{502, "text/html", `<html>Bad Gateway</html>`, nil}}, 1, 2, "model request failed with status 502: Bad Gateway"},
		{"5xx then success", []reply{{503, "application/json", `{"error":{"message":"busy"}}`, nil}, sse(okStream)}, 1, 2, ""},
		{"429 retried", []reply{{429, "application/json", `{"error":{"message":"slow down"}}`, map[string]string{"retry-after-ms": "1"}}, sse(okStream)}, 2, 2, ""},
		{"x-should-retry false", []reply{{429, "application/json", `{"error":{"message":"slow down"}}`, map[string]string{"x-should-retry": "false"}}}, 2, 1,
			"model request failed with status 429: slow down"},
		{"x-should-retry true", []reply{{400, "application/json", `{"error":{"message":"bad"}}`, map[string]string{"x-should-retry": "true", "retry-after-ms": "1"}}}, 2, 3,
			"model request failed with status 400: bad"},
		{"retry-after beyond the limit", []reply{{503, "application/json", `{"error":{"message":"later"}}`, map[string]string{"retry-after": "60"}}}, 2, 1,
			"model request failed with status 503: later"},
		{"400 not retried", []reply{{400, "application/json", `{"error":{"message":"bad"}}`, nil}}, 2, 1, "model request failed with status 400: bad"},
		{"message not a string", []reply{{422, "application/json", `{"error":{"message":5}}`, nil}}, 0, 1, "model request failed with status 422: 5"},
		{"error as a string", []reply{{403, "application/json", `{"error":"bad key"}`, nil}}, 0, 1, "model request failed with status 403: bad key"},
		{"error event", []reply{sse("data: {\"error\":{\"message\":\"overloaded\"}}\n\n")}, 0, 1,
			`the model endpoint could not be reached: model request to SERVER/v1 failed: received error while streaming: {"message":"overloaded"}`},
		{"no finish", []reply{sse("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")}, 0, 1,
			"the model stream ended before the answer was complete"},
		{"last event without a blank line is dropped", []reply{sse("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}")}, 0, 1,
			"the model stream ended before the answer was complete"},
		{"not a stream", []reply{{200, "application/json", `{"choices":[{"index":0,"message":{"content":"hi"},"finish_reason":"stop"}]}`, nil}}, 0, 1,
			"the model stream ended before the answer was complete"},
		{"event types, comments and split data lines", []reply{sse("event: message\ndata: {\"choices\":[{\"index\":0,\n: comment\ndata: \"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")}, 0, 1, ""},
		{"malformed chunk", []reply{sse("data: {\"choices\":[{\"index\":\"zero\"}]}\n\n")}, 0, 1, "the model sent a stream event that is not a Chat Completions chunk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.replies...)
			h := &textHandler{}
			_, err := NewOpenAI(Config{Model: "m", BaseURL: s.URL + "/v1", APIKey: "k", MaxRetries: tc.retries}).Stream(context.Background(), every(), h)
			want := strings.ReplaceAll(tc.err, "SERVER", s.URL)
			if (err == nil) != (want == "") || (err != nil && !strings.HasPrefix(err.Error(), want)) {
				t.Errorf("error %v, want %q", err, want)
			}
			if err == nil && h.String() != "hi" {
				t.Errorf("streamed %q", h.String())
			}
			if len(s.requests) != tc.requests {
				t.Errorf("%d requests, want %d", len(s.requests), tc.requests)
			}
			var me *Error
			if err != nil && strings.HasPrefix(want, "model request failed") && (!errors.As(err, &me) || me.Cause != nil) {
				t.Errorf("an API error is a public model error: %#v", err)
			}
		})
	}
}

func TestConnectionErrorsAndTimeouts(t *testing.T) {
	s := newServer(t, sse(okStream))
	url := s.URL
	s.Close()
	_, err := NewOpenAI(Config{Model: "m", BaseURL: url, MaxRetries: 1}).Stream(context.Background(), every(), &textHandler{})
	if err == nil || !strings.HasPrefix(err.Error(), "the model endpoint could not be reached: model request to "+url+" failed") {
		t.Errorf("closed server: %v", err)
	}

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"h\"}}]}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer slow.Close()
	_, err = NewOpenAI(Config{Model: "m", BaseURL: slow.URL, Timeout: 200 * time.Millisecond}).Stream(context.Background(), every(), &textHandler{})
	if err == nil || err.Error() != "model request timed out after 200ms" {
		t.Errorf("slow stream: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = NewOpenAI(Config{Model: "m", BaseURL: slow.URL}).Stream(ctx, every(), &textHandler{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

func TestToolCallsStream(t *testing.T) {
	s := newServer(t, sse(
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"ci\"}}]}}]}\n\n"+
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ty\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n"+
			"data: [DONE]\n\n"))
	resp, err := NewOpenAI(Config{Model: "m", BaseURL: s.URL}).Stream(context.Background(), every(), &textHandler{})
	testutil.Check(t, err)
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != (ToolCall{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`}) || resp.FinishReason != "tool_calls" {
		t.Errorf("%+v", resp)
	}
}

// TestAzureOpenAI: provider azure-openai goes through openai-go's Azure support: the request
// reaches /openai/deployments/{deployment}/chat/completions with the api-version and the
// api-key, or a Microsoft Entra token as a bearer token; a refused credential names what to
// check.
func TestAzureOpenAI(t *testing.T) {
	var got []*http.Request
	var mu sync.Mutex
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
		if r.Header.Get("api-key") == "wrong" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":{"code":"401","message":"Access denied due to invalid subscription key."}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, okStream)
	}))
	defer srv.Close()
	az := func(token string) *AzureConfig {
		return &AzureConfig{Endpoint: srv.URL, Deployment: "chef-gpt4o", APIVersion: "2024-10-21", Token: token}
	}
	resp, err := NewOpenAI(Config{Model: "gpt-4o", APIKey: "az-key", Azure: az(""), HTTPClient: srv.Client()}).Stream(context.Background(), every(), &textHandler{})
	if err != nil || resp.Text != "hi" {
		t.Fatalf("api-key: %v %+v", err, resp)
	}
	if _, err := NewOpenAI(Config{Model: "gpt-4o", Azure: az("entra-token"), HTTPClient: srv.Client()}).Stream(context.Background(), every(), &textHandler{}); err != nil {
		t.Fatalf("token: %v", err)
	}
	_, err = NewOpenAI(Config{Model: "gpt-4o", APIKey: "wrong", Azure: az(""), HTTPClient: srv.Client()}).Stream(context.Background(), every(), &textHandler{})
	if err == nil || !strings.Contains(err.Error(), "status 401: Access denied") || !strings.Contains(err.Error(), "Azure OpenAI key or token") {
		t.Errorf("refused key: %v", err)
	}
	if len(got) != 3 {
		t.Fatalf("%d requests", len(got))
	}
	for i, r := range got[:2] {
		if r.URL.Path != "/openai/deployments/chef-gpt4o/chat/completions" || r.URL.Query().Get("api-version") != "2024-10-21" {
			t.Errorf("request %d went to %s", i, r.URL)
		}
	}
	if got[0].Header.Get("api-key") != "az-key" || got[0].Header.Get("Authorization") != "" {
		t.Errorf("api-key request headers: api-key %q, Authorization %q", got[0].Header.Get("api-key"), got[0].Header.Get("Authorization"))
	}
	if got[1].Header.Get("Authorization") != "Bearer entra-token" || got[1].Header.Get("api-key") != "" {
		t.Errorf("token request headers: Authorization %q, api-key %q", got[1].Header.Get("Authorization"), got[1].Header.Get("api-key"))
	}
}

// Concurrent calls to one model endpoint keep their connections: three waves of 16 streaming
// calls open about 16 (net/http's default of 2 idle per host opened 16 + 14 + 14 = 44). The
// transport puts a connection back in its pool just after the body's end, so a call of the
// next wave may still dial now and then: the bound has room for that, not for the old pool.
func TestConcurrentCallsReuseConnections(t *testing.T) {
	s := newServer(t, sse(okStream))
	var opened atomic.Int32
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			opened.Add(1)
		}
	}
	c := NewOpenAI(Config{Model: "m", BaseURL: s.URL + "/v1", APIKey: "k"})
	const n = 16
	for wave := 0; wave < 3; wave++ {
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			wg.Go(func() {
				if _, err := c.Stream(context.Background(), Request{Messages: []Message{{Role: "user", Content: "u"}}}, &textHandler{}); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	if got, most := opened.Load(), int32(n+n/2); got > most {
		t.Errorf("%d connections opened for %d calls in waves of %d, want at most %d", got, 3*n, n, most)
	}
}

// TestMetadataAddressesAreRefused: a base URL aimed at the pod's metadata endpoint (a
// link-local address, or a metadata host name) is refused before any connection or DNS lookup,
// saying how to allow it; loopback and other internal endpoints stay reachable (the other tests
// call loopback servers through the same default client); the setting lets them through.
func TestMetadataAddressesAreRefused(t *testing.T) {
	for _, base := range []string{"http://169.254.169.254/v1", "http://metadata.google.internal/v1", "http://[fe80::1]:8000/v1"} {
		_, err := NewOpenAI(Config{Model: "m", BaseURL: base, MaxRetries: 0}).Stream(context.Background(), every(), &textHandler{})
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Public, "address is refused") || !strings.Contains(e.Public, AllowLinkLocalEnv+"=true") {
			t.Errorf("%s: %v", base, err)
		}
	}
	// With the setting the metadata name goes on to be dialled: a cancelled context stops the
	// dial before any lookup, so no packet leaves the machine.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for allow, wantRefused := range map[bool]bool{false: true, true: false} {
		dial := modelHTTPClient(allow).Transport.(*http.Transport).DialContext
		_, err := dial(ctx, "tcp", "metadata.google.internal:80")
		if _, refused := egress.Refused(err); refused != wantRefused || err == nil {
			t.Errorf("allow=%v: %v", allow, err)
		}
	}
}
