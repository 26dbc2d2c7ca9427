// Package tools compiles Tool manifests into executable server tools: JSON Schema validation of
// input and output around a sandboxed CEL expression or an HTTP call.
package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// DefaultHTTPTimeout bounds one HTTP tool call when the Tool sets no timeout.
const DefaultHTTPTimeout = 10 * time.Second

// Definition is a tool as the model sees it: a function name, a description and a JSON
// Schema of the parameters.
type Definition struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Options are the runtime's dependencies for compiling tools.
type Options struct {
	// Secrets resolves headersSecretRef of HTTP tools.
	Secrets secrets.Source
	// HTTPClient is the base of HTTP tools' client; nil means a default transport. Redirects
	// are never followed whatever it says, and a plain *http.Transport without dial functions
	// of its own gets the link-local check; any other RoundTripper dials as it likes.
	HTTPClient *http.Client
	// AllowLinkLocal lets HTTP tools reach link-local (169.254.0.0/16, fe80::/10) and cloud
	// metadata addresses, which are refused by default; AllowLinkLocalEnv=true does the same.
	AllowLinkLocal bool
	// Getenv reads AllowLinkLocalEnv (nil: os.Getenv).
	Getenv func(string) string
	// CELCostLimit overrides DefaultCELCostLimit.
	CELCostLimit uint64
	// ClusterDomain builds Service URLs (default cluster.local).
	ClusterDomain string
	// Self is this runtime's base URL (e.g. http://127.0.0.1:4111), for the tools that ask an
	// agent of the same runtime (their URL starts with SelfURL); nil: such a call fails.
	Self func() string
}

type executor interface {
	execute(ctx context.Context, input json.RawMessage) (json.RawMessage, error)
}

// omit leaves the offending value out of field errors (schemas and expressions are long).
var omit = field.OmitValueType{}

// Tool is a compiled, executable server tool.
type Tool struct {
	ID          string
	Description string
	Input       *Schema
	Output      *Schema
	Kind        string // "cel" or "http"
	timeout     time.Duration
	exec        executor
}

// Definition returns what the model is offered for this tool.
func (t *Tool) Definition() Definition {
	return Definition{Name: t.ID, Description: t.Description, Parameters: t.Input.Raw}
}

// Compile checks a Tool manifest the way the Tool reconciler's Valid condition does and
// returns the executable tool. Errors carry field paths under spec.
func Compile(tool *v1alpha1.Tool, opts Options) (*Tool, field.ErrorList) {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	t := &Tool{ID: tool.Spec.ID, Description: tool.Spec.Description}

	if tool.Spec.InputSchema == nil || len(tool.Spec.InputSchema.Raw) == 0 {
		errs = append(errs, field.Required(spec.Child("inputSchema"), "tools need an input schema"))
	} else if s, err := CompileSchema(tool.Spec.InputSchema.Raw); err != nil {
		errs = append(errs, field.Invalid(spec.Child("inputSchema"), omit, err.Error()))
	} else if err := s.RequireObjectSchema(); err != nil {
		errs = append(errs, field.Invalid(spec.Child("inputSchema"), omit, err.Error()))
	} else {
		t.Input = s
	}
	if tool.Spec.OutputSchema != nil && len(tool.Spec.OutputSchema.Raw) > 0 {
		if s, err := CompileSchema(tool.Spec.OutputSchema.Raw); err != nil {
			errs = append(errs, field.Invalid(spec.Child("outputSchema"), omit, err.Error()))
		} else {
			t.Output = s
		}
	}

	ex := tool.Spec.Execute
	exPath := spec.Child("execute")
	switch {
	case countSet(ex.CEL != "", ex.HTTP != nil, ex.A2A != nil) != 1:
		errs = append(errs, field.Invalid(exPath, omit, "execute must set exactly one of cel, http or a2a"))
	case ex.A2A != nil:
		allow := opts.allowLinkLocal()
		a := &a2aExecutor{url: ex.A2A.URL, secrets: opts.Secrets, client: toolClient(opts.HTTPClient, allow), identity: ex.A2A.CallerIdentity, self: opts.Self}
		if ex.A2A.HeadersSecretRef != nil {
			a.headersSecret = ex.A2A.HeadersSecretRef.Name
		}
		if u, err := url.Parse(ex.A2A.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, field.Invalid(exPath.Child("a2a", "url"), ex.A2A.URL, "must be an absolute http(s) URL"))
		} else if !allow && refusedHost(u.Hostname()) {
			errs = append(errs, field.Invalid(exPath.Child("a2a", "url"), ex.A2A.URL, "link-local and metadata addresses are refused"))
		}
		t.exec, t.Kind, t.timeout = a, "a2a", DefaultA2ATimeout
	case ex.CEL != "":
		var schemaDoc map[string]any
		if t.Input != nil {
			schemaDoc = t.Input.Doc()
		}
		c, err := compileCEL(ex.CEL, schemaDoc, opts.CELCostLimit)
		if err != nil {
			errs = append(errs, field.Invalid(exPath.Child("cel"), omit, strings.TrimSpace(err.Error())))
		}
		t.exec, t.Kind, t.timeout = c, "cel", DefaultCELTimeout
	default:
		url, err := httpURL(tool, opts.ClusterDomain)
		if err != nil {
			errs = append(errs, field.Invalid(exPath.Child("http"), omit, err.Error()))
		}
		allow := opts.allowLinkLocal()
		h := &httpExecutor{url: url, secrets: opts.Secrets, client: toolClient(opts.HTTPClient, allow), allowLinkLocal: allow}
		if ex.HTTP.HeadersSecretRef != nil {
			h.headersSecret = ex.HTTP.HeadersSecretRef.Name
		}
		h.identity = ex.HTTP.CallerIdentity
		t.exec, t.Kind, t.timeout = h, "http", DefaultHTTPTimeout
	}
	if ex.Timeout != nil {
		if ex.Timeout.Duration <= 0 {
			errs = append(errs, field.Invalid(exPath.Child("timeout"), ex.Timeout.Duration.String(), "must be positive"))
		}
		t.timeout = ex.Timeout.Duration
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return t, nil
}

// countSet is how many of the conditions hold.
func countSet(conds ...bool) int {
	n := 0
	for _, c := range conds {
		if c {
			n++
		}
	}
	return n
}

func (o Options) getenv(key string) string {
	if o.Getenv != nil {
		return o.Getenv(key)
	}
	return os.Getenv(key)
}

func httpURL(tool *v1alpha1.Tool, clusterDomain string) (string, error) {
	h := tool.Spec.Execute.HTTP
	if h.URL != "" {
		if h.Service != nil {
			return "", errors.New("http needs exactly one of url or service")
		}
		return h.URL, nil
	}
	if h.Service == nil {
		return "", errors.New("http needs exactly one of url or service")
	}
	ns := h.Service.Namespace
	ns = cmp.Or(ns, tool.Namespace, "default")
	clusterDomain = cmp.Or(clusterDomain, "cluster.local")
	port := h.Service.Port
	port = cmp.Or(port, 80)
	path := h.Service.Path
	path = cmp.Or(path, "/")
	return fmt.Sprintf("http://%s.%s.svc.%s:%d%s", h.Service.Name, ns, clusterDomain, port, path), nil
}

// InputError means the arguments do not match the input schema: the caller's fault.
type InputError struct{ Err error }

func (e *InputError) Error() string { return "invalid input: " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Call validates the arguments, executes the tool within its timeout and validates the result.
func (t *Tool) Call(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage(`{}`)
	}
	if err := t.Input.Validate(args); err != nil {
		return nil, &InputError{Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	out, err := t.exec.execute(ctx, args)
	if err == nil && t.Output != nil {
		if verr := t.Output.Validate(out); verr != nil {
			// The violation quotes the output, which for HTTP tools is an endpoint's answer.
			err = callError(fmt.Sprintf("tool %q returned output that does not match its outputSchema", t.ID), verr)
		}
	}
	if err != nil {
		var ce *CallError
		if errors.As(err, &ce) {
			logFor(ctx).Error(ce.Err, "tool call failed", "tool", t.ID, "kind", t.Kind, "result", ce.Public)
		}
		return nil, err
	}
	return out, nil
}
