package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentry-dev/agentry/internal/platform/egress"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"github.com/agentry-dev/agentry/chat/api"
	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/hub"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

const apiKey = "bridge-bench-api-key-0123456789abcdef"

// ---------------------------------------------------------------------------------------------
// Clean-up of everything started, also on SIGINT.

var cleanups testutil.Cleanups

// ---------------------------------------------------------------------------------------------
// The chat service, in this process and wired as `agentry chat` wires it: SQLite store, hub,
// bridge (default options) observing the hub, API in development mode (http Deployment URLs) on
// a real listener.

type chatService struct {
	base string // http://host:port/chat/v1
	hub  *hub.Hub
}

func startChat(dir string) (*chatService, error) {
	ctx := context.Background()
	st, err := store.OpenWith(ctx, "file:"+filepath.Join(dir, "chat.db"), store.Options{HeadersKey: bytes.Repeat([]byte{7}, 32)})
	if err != nil {
		return nil, err
	}
	log := logr.New(countingSink{})
	h := hub.New(hub.Options{Events: st, Authenticate: api.Authenticator(st), Logger: log})
	local := egress.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}} // the agents listen on loopback
	br := bridge.New(bridge.Options{Store: st, Publisher: h, Logger: log, Egress: local})
	h.Observe(br.OnEvent)
	a := api.New(api.Options{Store: st, Hub: h, APIKey: apiKey, Logger: log, Development: true, Bridge: br, MediaDir: filepath.Join(dir, "media"), AgentEgress: local})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	hubCtx, stopHub := context.WithCancel(context.Background())
	hubDone := make(chan error, 1)
	go func() { hubDone <- h.Run(hubCtx) }()
	srv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	cleanups.Add(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(cctx)
		_ = br.Close(cctx)
		stopHub()
		<-hubDone
		_ = st.Close()
	})
	return &chatService{base: "http://" + ln.Addr().String() + api.Prefix, hub: h}, nil
}

// countingSink counts the chat service's errors and failed runs and shows the first few; the
// rest of its logging is off, as at the default verbosity.
type countingSink struct{}

var serverErrors, runFailures atomic.Int64

func (countingSink) Init(logr.RuntimeInfo)  {}
func (countingSink) Enabled(level int) bool { return level == 0 }
func (countingSink) Info(_ int, msg string, kv ...any) {
	if msg == "agent run failed" && runFailures.Add(1) <= 3 {
		fmt.Fprintln(os.Stderr, "  [chat]", msg, kv)
	}
}
func (countingSink) Error(err error, msg string, kv ...any) {
	if serverErrors.Add(1) <= 3 {
		fmt.Fprintln(os.Stderr, "  [chat] ERROR", msg, err, kv)
	}
}
func (s countingSink) WithValues(...any) logr.LogSink { return s }
func (s countingSink) WithName(string) logr.LogSink   { return s }

// ---------------------------------------------------------------------------------------------
// REST.

var restClient = newClient()

// apiError is a non-2xx answer of the chat API.
type apiError struct {
	status int
	code   string
	body   string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.status, e.body) }

// call sends a JSON request with the API key (token "") or a bearer token, decodes a 2xx answer
// into out and returns the answer's headers.
func (c *chatService) call(method, path, token string, body, out any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token == "" {
		req.Header.Set("apikey", apiKey)
	} else {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := restClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode/100 != 2 {
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		return nil, &apiError{status: res.StatusCode, code: e.Error.Code, body: string(bytes.TrimSpace(raw))}
	}
	if out != nil {
		return res.Header, json.Unmarshal(raw, out)
	}
	return res.Header, nil
}

// user creates uid and mints its token.
func (c *chatService) user(uid string) (string, error) {
	if _, err := c.call(http.MethodPost, "/users", "", map[string]any{"uid": uid, "name": "User " + uid}, nil); err != nil {
		return "", err
	}
	var tok struct {
		AuthToken string `json:"authToken"`
	}
	_, err := c.call(http.MethodPost, "/users/"+uid+"/auth_tokens", "", map[string]any{}, &tok)
	return tok.AuthToken, err
}

// agent saves and enables an AG-UI agent configuration (which makes its agent user).
func (c *chatService) agent(id, url string) error {
	_, err := c.call(http.MethodPut, "/agents/"+id, "", map[string]any{
		"agentId": id, "name": "Bench " + id, "provider": "ag-ui", "deploymentUrl": url, "enabled": true}, nil)
	return err
}
