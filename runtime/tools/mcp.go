package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/mcpclient"
)

// maxMCPResult bounds what one MCP tool call may return to the model.
const maxMCPResult = 1 << 20

// MCPServers holds one session per MCP server, shared by every agent and request of the
// process: opened on first use, reused, and replaced after it breaks.
type MCPServers struct {
	opts    Options
	version string
	ctx     context.Context
	cancel  context.CancelFunc

	mu      sync.Mutex
	servers map[string]*mcpServer
}

type mcpServer struct {
	name   string
	spec   v1alpha1.MCPServerSpec
	connMu sync.Mutex // one connection attempt at a time
	mu     sync.Mutex
	sess   *mcpclient.Session
}

// NewMCPServers returns an empty pool; version is sent to servers in initialize.
func NewMCPServers(opts Options, version string) *MCPServers {
	ctx, cancel := context.WithCancel(context.Background())
	return &MCPServers{opts: opts, version: version, ctx: ctx, cancel: cancel, servers: map[string]*mcpServer{}}
}

// Close ends every session.
func (p *MCPServers) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, s := range p.servers {
		s.mu.Lock()
		if s.sess != nil {
			errs = append(errs, s.sess.Close())
			s.sess = nil
		}
		s.mu.Unlock()
	}
	p.cancel()
	return errors.Join(errs...)
}

// server registers (or returns) the server of an MCPServer object.
func (p *MCPServers) server(m *v1alpha1.MCPServer) *mcpServer {
	key := m.Namespace + "/" + m.Name
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.servers[key]
	if !ok {
		s = &mcpServer{name: m.Name, spec: m.Spec}
		p.servers[key] = s
	}
	return s
}

// config is how to reach s now: header values are read from the mounted Secret on every
// connection, so a rotated Secret is used by the next session.
func (p *MCPServers) config(s *mcpServer) (mcpclient.Server, error) {
	var headers map[string]string
	if ref := s.spec.HeadersSecretRef; ref != nil {
		if p.opts.Secrets == nil {
			return mcpclient.Server{}, fmt.Errorf("no secrets source for Secret %q", ref.Name)
		}
		data, err := p.opts.Secrets.Secret(ref.Name)
		if err != nil {
			return mcpclient.Server{}, &mcpclient.Error{Reason: v1alpha1.ReasonSecretNotFound,
				Message: fmt.Sprintf("the headers Secret %q could not be read", ref.Name), Err: err}
		}
		headers = data
	}
	client := withCallerIdentity(toolClient(p.opts.HTTPClient, p.opts.allowLinkLocal()), s.spec.CallerIdentity)
	return mcpclient.FromSpec(s.spec, headers, client, p.version), nil
}

// Discover lists the allowed tools of m (for manifests no operator has discovered).
func (p *MCPServers) Discover(ctx context.Context, m *v1alpha1.MCPServer) (*mcpclient.Discovery, error) {
	cfg, err := p.config(p.server(m))
	if err != nil {
		return nil, err
	}
	return mcpclient.Discover(ctx, cfg, m.Spec.Tools)
}

// session returns the open session, connecting if there is none.
func (p *MCPServers) session(s *mcpServer) (*mcpclient.Session, error) {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess != nil {
		return sess, nil
	}
	s.connMu.Lock()
	defer s.connMu.Unlock()
	s.mu.Lock()
	sess = s.sess
	s.mu.Unlock()
	if sess != nil {
		return sess, nil
	}
	cfg, err := p.config(s)
	if err != nil {
		return nil, callError("the MCP server's credentials could not be read", err)
	}
	sess, err = mcpclient.Connect(p.ctx, cfg)
	if err != nil {
		e := mcpclient.Classify(err)
		return nil, callError(fmt.Sprintf("MCP server %q is not available (%s)", s.name, e.Reason), err)
	}
	s.mu.Lock()
	s.sess = sess
	s.mu.Unlock()
	go func() {
		// A session the server or the network ended is dropped, so the next call reconnects.
		_ = sess.Wait()
		s.drop(sess)
	}()
	return sess, nil
}

// drop forgets sess if it is still the current session and closes it.
func (s *mcpServer) drop(sess *mcpclient.Session) {
	s.mu.Lock()
	if s.sess == sess {
		s.sess = nil
	}
	s.mu.Unlock()
	_ = sess.Close()
}

type mcpExecutor struct {
	pool   *MCPServers
	server *mcpServer
	tool   string
}

// CompileMCP makes the server tool the model sees as name from one tool of an MCP server.
func CompileMCP(name string, m *v1alpha1.MCPServer, info v1alpha1.MCPToolInfo, pool *MCPServers) (*Tool, error) {
	t := &Tool{ID: name, Description: info.Description, Kind: "mcp", timeout: v1alpha1.DefaultMCPTimeout}
	schema := json.RawMessage(`{"type":"object"}`)
	if info.InputSchema != nil && len(info.InputSchema.Raw) > 0 {
		schema = info.InputSchema.Raw
	}
	s, err := CompileSchema(schema)
	if err == nil {
		err = s.RequireObjectSchema()
	}
	if err != nil {
		return nil, fmt.Errorf("tool %q of MCPServer %q: input schema: %w", info.Name, m.Name, err)
	}
	t.Input = s
	if m.Spec.Timeout != nil && m.Spec.Timeout.Duration > 0 {
		t.timeout = m.Spec.Timeout.Duration
	}
	t.exec = &mcpExecutor{pool: pool, server: pool.server(m), tool: info.Name}
	return t, nil
}

func (e *mcpExecutor) execute(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	res, err := e.call(ctx, input)
	if err != nil {
		return nil, err
	}
	return mcpResult(res)
}

// call runs tools/call on the current session. A session the server no longer knows (it
// restarted) or one that was already closed never reached the tool, so the call is made once
// more on a new session; any other failure ends the session and is the call's result.
func (e *mcpExecutor) call(ctx context.Context, input json.RawMessage) (*mcp.CallToolResult, error) {
	for attempt := 0; ; attempt++ {
		sess, err := e.pool.session(e.server)
		if err != nil {
			return nil, err
		}
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: e.tool, Arguments: input})
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, callError(fmt.Sprintf("MCP tool %q did not answer in time", e.tool), err)
			}
			return nil, callError(msgCanceled, ctx.Err())
		}
		if w, ok := rpcError(err); ok {
			// The server answered with a JSON-RPC error (an unknown tool, invalid arguments):
			// the session is fine, and the model may correct itself.
			return nil, callError(fmt.Sprintf("MCP tool %q: %s", e.tool, truncateText(w.Message, 1024)), err)
		}
		e.server.drop(sess)
		if attempt == 0 && (errors.Is(err, mcp.ErrSessionMissing) || errors.Is(err, mcp.ErrConnectionClosed)) {
			continue
		}
		c := mcpclient.Classify(err)
		return nil, callError(fmt.Sprintf("MCP server %q failed during the call (%s)", e.server.name, c.Reason), err)
	}
}

// mcpResult turns a tools/call result into the tool's output: the structured content when
// there is some, otherwise the text (one text block as a JSON string, several as a list).
// A result the server marks as an error is a failed call whose text the model sees.
func mcpResult(res *mcp.CallToolResult) (json.RawMessage, error) {
	if res.IsError {
		msg := strings.TrimSpace(contentText(res.Content))
		msg = cmp.Or(msg, "the tool reported an error")
		return nil, &CallError{Public: truncateText(msg, 4096), Err: errors.New("MCP tool result isError")}
	}
	var out any
	switch {
	case res.StructuredContent != nil:
		out = res.StructuredContent
	case len(res.Content) == 1:
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			out = tc.Text
		} else {
			out = contentItems(res.Content)
		}
	default:
		out = contentItems(res.Content)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, callError("the MCP tool's result could not be encoded", err)
	}
	if len(data) > maxMCPResult {
		return nil, callError("the MCP tool's result is larger than 1 MiB", fmt.Errorf("%d bytes", len(data)))
	}
	return data, nil
}

func contentText(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// contentItems describes each content block; binary data (images, audio) is left out, since a
// Chat Completions tool message carries text only.
func contentItems(content []mcp.Content) []map[string]any {
	out := make([]map[string]any, 0, len(content))
	for _, c := range content {
		switch v := c.(type) {
		case *mcp.TextContent:
			out = append(out, map[string]any{"type": "text", "text": v.Text})
		case *mcp.ImageContent:
			out = append(out, map[string]any{"type": "image", "mimeType": v.MIMEType, "note": "binary content not shown"})
		case *mcp.AudioContent:
			out = append(out, map[string]any{"type": "audio", "mimeType": v.MIMEType, "note": "binary content not shown"})
		case *mcp.ResourceLink:
			out = append(out, map[string]any{"type": "resource_link", "uri": v.URI, "name": v.Name})
		case *mcp.EmbeddedResource:
			item := map[string]any{"type": "resource"}
			if v.Resource != nil {
				item["uri"] = v.Resource.URI
				if v.Resource.Text != "" {
					item["text"] = v.Resource.Text
				}
			}
			out = append(out, item)
		}
	}
	return out
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// rpcError is the server's JSON-RPC error answer inside err, if any.
func rpcError(err error) (*jsonrpc.Error, bool) {
	var w *jsonrpc.Error
	ok := errors.As(err, &w)
	return w, ok
}
