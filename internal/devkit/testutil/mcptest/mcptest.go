// Package mcptest runs a Model Context Protocol server written with the official Go SDK on
// loopback, for tests: streamable HTTP at /mcp and the older HTTP+SSE transport at /sse, an
// optional bearer token, a stop and a restart on the same port, and tools that answer, fail,
// return structured content or take their time.
package mcptest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is a running test MCP server.
type Server struct {
	MCP *mcp.Server
	// URL is the streamable HTTP endpoint; SSEURL the HTTP+SSE one.
	URL, SSEURL string
	// Calls counts tools/call requests.
	Calls atomic.Int64

	token string
	addr  string
	mu    sync.Mutex
	srv   *http.Server
}

// Options configure Start.
type Options struct {
	// Token, when set, is the bearer token every request must carry (401 otherwise).
	Token string
	// Stateless serves streamable HTTP without sessions.
	Stateless bool
}

// AddInput is the input of the add tool.
type AddInput struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

// AddOutput is the structured output of the add tool.
type AddOutput struct {
	Sum float64 `json:"sum"`
}

// EchoInput is the input of echo, fail and slow.
type EchoInput struct {
	Text string `json:"text" jsonschema:"what to answer"`
}

// Start serves a server with the tools echo (text), add (structured content), fail (a tool
// error) and slow (answers after the text's duration, e.g. "2s", or when canceled).
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{MCP: mcp.NewServer(&mcp.Implementation{Name: "agentry-test", Version: "1.0.0"}, nil), token: opts.Token}
	mcp.AddTool(s.MCP, &mcp.Tool{Name: "echo", Description: "Answers with the text it is given."},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoInput) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	mcp.AddTool(s.MCP, &mcp.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in AddInput) (*mcp.CallToolResult, AddOutput, error) {
			return nil, AddOutput{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s.MCP, &mcp.Tool{Name: "fail", Description: "Always fails with the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoInput) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("failed: " + in.Text)
		})
	mcp.AddTool(s.MCP, &mcp.Tool{Name: "slow", Description: "Answers after the duration in text, e.g. 2s."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in EchoInput) (*mcp.CallToolResult, any, error) {
			d, err := time.ParseDuration(in.Text)
			if err != nil {
				return nil, nil, err
			}
			select {
			case <-time.After(d):
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done after " + d.String()}}}, nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	s.MCP.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				s.Calls.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("failed to listen: %v", err)
	}
	s.addr = ln.Addr().String()
	s.URL = "http://" + s.addr + "/mcp"
	s.SSEURL = "http://" + s.addr + "/sse"
	s.serve(ln, opts.Stateless)
	t.Cleanup(s.Stop)
	return s
}

func (s *Server) serve(ln net.Listener, stateless bool) {
	get := func(*http.Request) *mcp.Server { return s.MCP }
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: stateless}))
	mux.Handle("/sse", mcp.NewSSEHandler(get, nil))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcptest"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// Stop closes the listener and every connection (sessions die with them).
func (s *Server) Stop() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// Restart serves again on the same address, with new sessions (the old ones are unknown).
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("failed to listen on %s again: %v", s.addr, err)
	}
	s.serve(ln, false)
}

// Hanging is a TCP server that accepts connections and never answers.
func Hanging(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("failed to listen: %v", err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return fmt.Sprintf("http://%s/mcp", ln.Addr())
}
