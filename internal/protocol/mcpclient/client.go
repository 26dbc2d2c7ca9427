// Package mcpclient connects to Model Context Protocol servers with the official Go SDK, for
// the operator (discovery into an MCPServer's status) and the runtime (tool calls): the
// transport an MCPServer names, its headers sent to its own origin only, the egress policy on
// every connection, a deadline on connecting, and errors sorted into the reasons of the Ready
// condition.
package mcpclient

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentry-dev/agentry/api/v1alpha1"
)

// ClientName is how Agentry introduces itself to MCP servers.
const ClientName = "agentry"

// Server is what it takes to reach one MCP server.
type Server struct {
	URL       string
	Transport v1alpha1.MCPTransport
	// Headers are sent with every request to the server's origin (scheme, host and port of
	// URL), never to another (an SSE server names its message endpoint itself).
	Headers map[string]string
	// Timeout bounds connecting (and, for callers, each request); 0 means the default.
	Timeout time.Duration
	// HTTPClient makes the connections; nil means an egress-guarded client that refuses
	// link-local and metadata addresses. Its CheckRedirect is kept; callers pass
	// egress-guarded clients.
	HTTPClient *http.Client
	// Version is the client version sent in initialize.
	Version string
}

// FromSpec is the Server of an MCPServer's spec with the given header values.
func FromSpec(spec v1alpha1.MCPServerSpec, headers map[string]string, client *http.Client, version string) Server {
	s := Server{URL: spec.URL, Transport: spec.Transport, Headers: headers, HTTPClient: client, Version: version, Timeout: v1alpha1.DefaultMCPTimeout}
	if spec.Timeout != nil && spec.Timeout.Duration > 0 {
		s.Timeout = spec.Timeout.Duration
	}
	return s
}

func (s Server) timeout() time.Duration {
	if s.Timeout <= 0 {
		return v1alpha1.DefaultMCPTimeout
	}
	return s.Timeout
}

// Session is a connected MCP session and what its HTTP exchanges showed (for Classify).
type Session struct {
	*mcp.ClientSession
	rec    *recorder
	cancel context.CancelFunc
}

// Close ends the session and its connections.
func (s *Session) Close() error {
	err := s.ClientSession.Close()
	s.cancel()
	return err
}

// Connect opens a session within the server's timeout. The session lives until Close or until
// ctx ends (the SSE transport's event stream is bound to it), so pass a long-lived ctx.
func Connect(ctx context.Context, s Server) (*Session, error) {
	rec := &recorder{}
	hc, err := s.httpClient(rec)
	if err != nil {
		return nil, err
	}
	var transport mcp.Transport
	if s.Transport == v1alpha1.MCPTransportSSE {
		transport = &mcp.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc}
	} else {
		// No standalone event stream: the runtime only calls tools, and the operator lists
		// them again on its own schedule. No reconnect attempts inside the SDK either: a
		// broken session is replaced by a new one (runtime) or reported (operator).
		transport = &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}
	}
	version := s.Version
	version = cmp.Or(version, "dev")
	client := mcp.NewClient(&mcp.Implementation{Name: ClientName, Version: version}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})

	// The session outlives this call (sessionCtx), so the timeout is a timer, not a deadline.
	// Connect runs aside: when the timer fires the caller gets Timeout at once, whatever the
	// SDK's teardown of a half-open session then takes (up to its own 5 s bounds for the
	// session DELETE and the cancellation notice), and a session that still opens is closed.
	sessionCtx, cancel := context.WithCancel(ctx)
	type connected struct {
		cs  *mcp.ClientSession
		err error
	}
	done := make(chan connected, 1)
	go func() {
		cs, err := client.Connect(sessionCtx, transport, nil)
		done <- connected{cs, err}
	}()
	abandon := func() {
		cancel()
		go func() {
			if r := <-done; r.cs != nil {
				_ = r.cs.Close()
			}
		}()
	}
	timer := time.NewTimer(s.timeout())
	defer timer.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			cancel()
			return nil, classify(r.err, rec, "initialize")
		}
		return &Session{ClientSession: r.cs, rec: rec, cancel: cancel}, nil
	case <-timer.C:
		abandon()
		return nil, &Error{Reason: ReasonTimeout, Message: fmt.Sprintf("no answer to initialize within %s", s.timeout()), Err: context.DeadlineExceeded}
	case <-ctx.Done():
		abandon()
		return nil, classify(ctx.Err(), rec, "initialize")
	}
}

// httpClient wraps the base client's transport: headers to the server's origin only, and a
// record of the last error status for Classify.
func (s Server) httpClient(rec *recorder) (*http.Client, error) {
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{Reason: ReasonProtocolError, Message: "the url is not an http(s) URL"}
	}
	base := s.HTTPClient
	if base == nil {
		base = defaultClient()
	}
	rt := base.Transport
	rt = cmp.Or(rt, http.DefaultTransport)
	c := *base
	c.Transport = &headerTransport{base: rt, origin: origin(u), headers: s.Headers, rec: rec}
	return &c, nil
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

type headerTransport struct {
	base    http.RoundTripper
	origin  string
	headers map[string]string
	rec     *recorder
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 && origin(req.URL) == t.origin {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	res, err := t.base.RoundTrip(req)
	if err == nil && res.StatusCode >= 400 {
		t.rec.status(res.StatusCode)
	}
	return res, err
}

// recorder keeps the last HTTP error status of a session's exchanges: the SDK reports a 401
// as the text "Unauthorized" inside its error, which is no contract to sort errors by.
type recorder struct {
	mu   sync.Mutex
	last int
}

func (r *recorder) status(code int) {
	r.mu.Lock()
	r.last = code
	r.mu.Unlock()
}

func (r *recorder) take() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.last
	r.last = 0
	return c
}
