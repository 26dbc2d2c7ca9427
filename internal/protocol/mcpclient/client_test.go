package mcpclient

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/devkit/testutil/mcptest"
	"github.com/agentry-dev/agentry/internal/platform/egress"
)

func discover(t *testing.T, s Server, allow ...string) (*Discovery, *Error) {
	t.Helper()
	d, err := Discover(context.Background(), s, allow)
	if err != nil {
		return nil, Classify(err)
	}
	return d, nil
}

func toolNames(d *Discovery) string {
	var n []string
	for _, t := range d.Tools {
		n = append(n, t.Name)
	}
	return strings.Join(n, ",")
}

// Both transports of a server written with the official Go SDK list the same tools, with
// their schemas.
func TestDiscoverOverBothTransports(t *testing.T) {
	srv := mcptest.Start(t, mcptest.Options{})
	for _, c := range []struct {
		transport v1alpha1.MCPTransport
		url       string
	}{{v1alpha1.MCPTransportStreamableHTTP, srv.URL}, {"", srv.URL}, {v1alpha1.MCPTransportSSE, srv.SSEURL}} {
		d, err := discover(t, Server{URL: c.url, Transport: c.transport, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatalf("%s: %v", c.transport, err)
		}
		if got := toolNames(d); got != "add,echo,fail,slow" {
			t.Fatalf("%s: tools %s", c.transport, got)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(d.Tools[0].InputSchema.Raw, &schema); err != nil || schema.Type != "object" || schema.Properties["a"] == nil {
			t.Fatalf("%s: add's schema %s (%v)", c.transport, d.Tools[0].InputSchema.Raw, err)
		}
		if d.Tools[1].Description != "Answers with the text it is given." {
			t.Fatalf("echo's description %q", d.Tools[1].Description)
		}
	}
}

func TestAllowList(t *testing.T) {
	srv := mcptest.Start(t, mcptest.Options{})
	d, err := discover(t, Server{URL: srv.URL}, "echo", "add", "gone")
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(d); got != "add,echo" || strings.Join(d.Missing, ",") != "gone" {
		t.Fatalf("tools %s, missing %v", got, d.Missing)
	}
}

// Each failure gets the reason an admin can act on.
func TestFailuresAreClassified(t *testing.T) {
	authed := mcptest.Start(t, mcptest.Options{Token: "s3cret-token"})
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsSrv.Close)
	notMCP := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notMCP.Close)
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedURL := "http://" + closed.Addr().String() + "/mcp"
	_ = closed.Close()

	for _, c := range []struct {
		name    string
		server  Server
		reason  string
		message string
	}{
		{"no token", Server{URL: authed.URL}, ReasonUnauthorized, "401"},
		{"wrong token", Server{URL: authed.URL, Headers: map[string]string{"Authorization": "Bearer nope"}}, ReasonUnauthorized, "401"},
		{"untrusted certificate", Server{URL: tlsSrv.URL + "/mcp"}, ReasonTLSError, "certificate"},
		{"http to nothing", Server{URL: closedURL}, ReasonUnreachable, "connection refused"},
		{"not an MCP endpoint", Server{URL: notMCP.URL + "/mcp"}, ReasonProtocolError, "404"},
		{"hangs", Server{URL: mcptest.Hanging(t), Timeout: 300 * time.Millisecond}, ReasonTimeout, "300ms"},
		{"metadata address", Server{URL: "http://169.254.169.254/mcp", Timeout: time.Second}, ReasonUnreachable, "egress policy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := discover(t, c.server)
			if err == nil {
				t.Fatal("discovery succeeded")
			}
			if err.Reason != c.reason || !strings.Contains(err.Message, c.message) {
				t.Fatalf("reason %s, message %q; want %s with %q", err.Reason, err.Message, c.reason, c.message)
			}
			if strings.Contains(err.Message, "s3cret") || strings.Contains(err.Message, "nope") {
				t.Fatalf("message carries a header value: %q", err.Message)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %s", d)
			}
		})
	}
	d, err := discover(t, Server{URL: authed.URL, Headers: map[string]string{"Authorization": "Bearer s3cret-token"}})
	if err != nil || len(d.Tools) != 4 {
		t.Fatalf("with the token: %v %v", d, err)
	}
}

// Headers go to the server's own origin only: an SSE server names its message endpoint, and
// one naming another host does not get the credentials.
func TestHeadersStayWithTheOrigin(t *testing.T) {
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
		http.Error(w, "no", http.StatusNotFound)
	}))
	t.Cleanup(other.Close)
	// An SSE endpoint whose first event points the client at the other server.
	sse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("event: endpoint\ndata: " + other.URL + "/message\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(sse.Close)
	_, err := discover(t, Server{URL: sse.URL, Transport: v1alpha1.MCPTransportSSE, Headers: map[string]string{"Authorization": "Bearer t"}, Timeout: 2 * time.Second})
	if err == nil {
		t.Fatal("discovery succeeded against a server that answers nothing")
	}
	if len(seen) == 0 {
		t.Fatal("the client never posted to the message endpoint")
	}
	for _, h := range seen {
		if h != "" {
			t.Fatalf("the other origin received Authorization %q", h)
		}
	}
}

// An internal address is refused when the policy says so (the runtime's default allows
// in-cluster servers; a stricter caller passes its own client).
func TestEgressPolicyApplies(t *testing.T) {
	srv := mcptest.Start(t, mcptest.Options{})
	strict := egress.Policy{Deny: []netip.Addr{netip.MustParseAddr("127.0.0.1")}}.Client(time.Second)
	_, err := discover(t, Server{URL: srv.URL, HTTPClient: strict})
	if err == nil || err.Reason != ReasonUnreachable || !strings.Contains(err.Message, "egress policy") {
		t.Fatalf("got %v", err)
	}
}

func TestBind(t *testing.T) {
	server := &v1alpha1.MCPServer{}
	server.Name = "gh"
	tools := []v1alpha1.MCPToolInfo{{Name: "create_issue"}, {Name: "search"}, {Name: "files.read"}}
	ref := &v1alpha1.LocalObjectReference{Name: "gh"}
	for _, c := range []struct {
		name   string
		entry  v1alpha1.AgentTool
		server *v1alpha1.MCPServer
		names  string
		reason string
	}{
		{"one tool", v1alpha1.AgentTool{Key: "search", MCPServerRef: ref, ToolName: "search"}, server, "search", ""},
		{"one tool with a prefix", v1alpha1.AgentTool{Key: "gh_search", MCPServerRef: ref, ToolName: "search", Prefix: "gh_"}, server, "gh_search", ""},
		{"key differs", v1alpha1.AgentTool{Key: "find", MCPServerRef: ref, ToolName: "search"}, server, "", v1alpha1.ReasonToolIDMismatch},
		{"not offered", v1alpha1.AgentTool{Key: "delete", MCPServerRef: ref, ToolName: "delete"}, server, "", v1alpha1.ReasonMCPToolNotFound},
		{"name models refuse", v1alpha1.AgentTool{Key: "x", MCPServerRef: ref, ToolName: "files.read"}, server, "", v1alpha1.ReasonInvalidToolName},
		{"no server", v1alpha1.AgentTool{Key: "x", MCPServerRef: ref}, nil, "", v1alpha1.ReasonMCPServerNotFound},
		{"all tools", v1alpha1.AgentTool{Key: "github", MCPServerRef: ref, Prefix: "gh_"}, server, "gh_create_issue,gh_search", v1alpha1.ReasonInvalidToolName},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, p := Bind(c.entry, c.server, tools)
			var names []string
			for _, x := range b {
				names = append(names, x.Name)
			}
			if strings.Join(names, ",") != c.names {
				t.Fatalf("names %v, want %s", names, c.names)
			}
			if (c.reason == "") != (len(p) == 0) || (len(p) > 0 && p[0].Reason != c.reason) {
				t.Fatalf("problems %+v, want reason %q", p, c.reason)
			}
		})
	}
	b, _ := Bind(v1alpha1.AgentTool{Key: "all", MCPServerRef: ref}, server, tools)
	kept, p := Duplicates(b, map[string]string{"search": "search-tool"})
	if len(kept) != 1 || kept[0].Name != "create_issue" || len(p) != 1 || p[0].Reason != v1alpha1.ReasonDuplicateToolName {
		t.Fatalf("kept %+v, problems %+v", kept, p)
	}
}
