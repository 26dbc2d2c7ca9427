package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/platform/egress"
)

// Limits on what one server's discovery may put into an MCPServer's status (etcd objects are
// at most 1.5 MiB).
const (
	MaxDescription = 4096
	MaxSchemaBytes = 64 << 10
	MaxStatusBytes = 512 << 10
)

// defaultClient refuses link-local and metadata addresses; internal ones are allowed (MCP
// servers usually run in the cluster or beside the runtime).
var defaultClient = sync.OnceValue(func() *http.Client {
	return egress.Policy{AllowInternal: true}.Client(10 * time.Second)
})

// Discovery is the outcome of listing a server's tools.
type Discovery struct {
	// Tools are the allowed tools, sorted by name.
	Tools []v1alpha1.MCPToolInfo
	// Missing are allow-list names the server does not offer.
	Missing []string
}

// Discover connects, lists every page of tools within the server's timeout and closes.
func Discover(ctx context.Context, s Server, allow []string) (*Discovery, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sess, err := Connect(ctx, s)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	listCtx, stop := context.WithTimeout(ctx, s.timeout())
	defer stop()
	var list []*mcp.Tool
	for t, err := range sess.Tools(listCtx, nil) {
		if err != nil {
			if listCtx.Err() != nil {
				return nil, &Error{Reason: ReasonTimeout, Message: fmt.Sprintf("tools/list did not finish within %s", s.timeout()), Err: err}
			}
			return nil, classify(err, sess.rec, "tools/list")
		}
		list = append(list, t)
		if len(list) > 10*v1alpha1.MaxMCPTools {
			return nil, &Error{Reason: ReasonProtocolError, Message: fmt.Sprintf("the server lists more than %d tools", 10*v1alpha1.MaxMCPTools)}
		}
	}
	return select_(list, allow)
}

// select_ keeps the allowed tools and checks them against the status limits.
func select_(list []*mcp.Tool, allow []string) (*Discovery, error) {
	allowed := map[string]bool{}
	for _, n := range allow {
		allowed[n] = true
	}
	seen := map[string]bool{}
	d := &Discovery{}
	size := 0
	for _, t := range list {
		if t == nil || (len(allow) > 0 && !allowed[t.Name]) {
			continue
		}
		if t.Name == "" {
			return nil, &Error{Reason: ReasonProtocolError, Message: "the server lists a tool without a name"}
		}
		if seen[t.Name] {
			return nil, &Error{Reason: ReasonProtocolError, Message: fmt.Sprintf("the server lists tool %q twice", t.Name)}
		}
		seen[t.Name] = true
		info := v1alpha1.MCPToolInfo{Name: t.Name, Description: t.Description}
		if len(info.Description) > MaxDescription {
			info.Description = truncate(info.Description, MaxDescription)
		}
		raw, err := schemaJSON(t.InputSchema)
		if err != nil {
			return nil, &Error{Reason: ReasonProtocolError, Message: fmt.Sprintf("tool %q: the input schema is not a JSON object", t.Name), Err: err}
		}
		if len(raw) > MaxSchemaBytes {
			return nil, &Error{Reason: ReasonProtocolError, Message: fmt.Sprintf("tool %q: the input schema is %d bytes, more than %d", t.Name, len(raw), MaxSchemaBytes)}
		}
		info.InputSchema = &runtime.RawExtension{Raw: raw}
		size += len(raw) + len(info.Description) + len(info.Name)
		d.Tools = append(d.Tools, info)
	}
	if len(d.Tools) > v1alpha1.MaxMCPTools {
		return nil, &Error{Reason: ReasonProtocolError, Message: fmt.Sprintf("the server offers %d tools, more than %d: list the ones agents use in spec.tools", len(d.Tools), v1alpha1.MaxMCPTools)}
	}
	if size > MaxStatusBytes {
		return nil, &Error{Reason: ReasonProtocolError, Message: fmt.Sprintf("the tools' schemas and descriptions add up to %d bytes, more than %d: list the ones agents use in spec.tools", size, MaxStatusBytes)}
	}
	for _, n := range allow {
		if !seen[n] {
			d.Missing = append(d.Missing, n)
		}
	}
	sort.Slice(d.Tools, func(i, j int) bool { return d.Tools[i].Name < d.Tools[j].Name })
	sort.Strings(d.Missing)
	return d, nil
}

// schemaJSON is a tool's input schema as a JSON object ({"type":"object"} when it has none).
func schemaJSON(schema any) (json.RawMessage, error) {
	if schema == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	return raw, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
