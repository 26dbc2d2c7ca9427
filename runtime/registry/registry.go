// Package registry turns loaded manifests into runnable agents: it resolves each Agent's tool
// map and frontend actions, compiles every Tool, and configures the model client. A tool whose
// map key differs from its Tool's spec.id is left out (it does not fire) and reported.
package registry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/memory"
	"github.com/agentry-dev/agentry/runtime/secrets"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// BaseURLEnv overrides the model base URL for agents whose manifest sets none.
const BaseURLEnv = "OPENAI_BASE_URL"

// ModelOverride replaces every agent's model endpoint (agentry dev's scripted model).
type ModelOverride struct {
	BaseURL string
	APIKey  string
}

// Options are what the registry needs from its environment.
type Options struct {
	// Getenv reads environment variables (os.Getenv in production).
	Getenv func(string) string
	// Secrets resolves Secret references (the operator mounts them as files).
	Secrets secrets.Source
	// HTTPClient is used for model and HTTP tool calls; nil means defaults.
	HTTPClient *http.Client
	// ModelOverride, when set, points every agent at one endpoint.
	ModelOverride *ModelOverride
	// MemoryDefault is the storage URL of agents that configure no memory ("" = none).
	MemoryDefault string
	// DiscoverMCP lists the tools of MCPServers whose manifest has no status.tools (written by
	// hand; the operator renders the tools it discovered) once, at build.
	DiscoverMCP bool
	// Version is sent to MCP servers as the client's version.
	Version string
	// SelfURL is the base URL this runtime serves at once it listens: an agentRef entry asks
	// the named Agent of the same config there, over A2A.
	SelfURL func() string
}

// DefaultLastMessages is how many messages are recalled when spec.memory.lastMessages is unset.
const DefaultLastMessages = 20

// Warning is a problem that does not stop start-up but changes behaviour.
type Warning struct {
	Agent   string
	Message string
}

// Registry holds the runnable agents by agent id.
type Registry struct {
	agents map[string]*Entry
	order  []string
	stores map[string]memory.Store // by URL, shared by the agents that use it
	mcp    *tools.MCPServers
}

// Entry is a runnable agent with the manifest it came from.
type Entry struct {
	Agent    *agent.Agent
	Manifest *v1alpha1.Agent
	// Memory is the agent's conversation store, nil without memory.
	Memory       memory.Store
	LastMessages int
}

// Stores are the distinct memory stores in use.
func (r *Registry) Stores() []memory.Store {
	out := make([]memory.Store, 0, len(r.stores))
	for _, s := range r.stores {
		out = append(out, s)
	}
	return out
}

// Close closes the memory stores.
func (r *Registry) Close() error {
	var errs []error
	for _, s := range r.stores {
		errs = append(errs, s.Close())
	}
	if r.mcp != nil {
		errs = append(errs, r.mcp.Close())
	}
	return errors.Join(errs...)
}

// Get returns the agent registered under id.
func (r *Registry) Get(id string) (*Entry, bool) {
	e, ok := r.agents[id]
	return e, ok
}

// IDs lists the agent ids in order.
func (r *Registry) IDs() []string { return append([]string(nil), r.order...) }

// Build compiles a manifest set. Invalid Tools and FrontendActions and clashing agent ids are
// errors (naming file, object and field); unresolved references and tool-key mismatches are
// warnings, and the affected tools do not fire.
func Build(ctx context.Context, set *decode.Set, opts Options) (*Registry, []Warning, error) {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	var errs []error
	compiled := map[*v1alpha1.Tool]*tools.Tool{}
	toolOpts := tools.Options{Secrets: opts.Secrets, HTTPClient: opts.HTTPClient}
	for _, t := range set.Tools {
		ct, ferrs := tools.Compile(t, toolOpts)
		if len(ferrs) > 0 {
			errs = append(errs, fmt.Errorf("%s: %w", set.SourceOf("Tool", t.Namespace, t.Name), ferrs.ToAggregate()))
			continue
		}
		compiled[t] = ct
	}
	for _, f := range set.FrontendActions {
		if f.Spec.Parameters == nil {
			continue
		}
		if ferrs := tools.ValidateParameters(f.Spec.Parameters.Raw, field.NewPath("spec", "parameters")); len(ferrs) > 0 {
			errs = append(errs, fmt.Errorf("%s: %w", set.SourceOf("FrontendAction", f.Namespace, f.Name), ferrs.ToAggregate()))
		}
	}

	reg := &Registry{agents: map[string]*Entry{}, stores: map[string]memory.Store{}, mcp: tools.NewMCPServers(toolOpts, opts.Version)}
	servers := mcpTools(ctx, set, reg.mcp, opts.DiscoverMCP)
	var warnings []Warning
	for _, m := range set.Agents {
		id := m.EffectiveAgentID()
		src := set.SourceOf("Agent", m.Namespace, m.Name)
		if prev, dup := reg.agents[id]; dup {
			errs = append(errs, fmt.Errorf("%s: agent id %q is already used by Agent %q", src, id, prev.Manifest.Name))
			continue
		}
		a, w, err := buildAgent(set, m, compiled, servers, reg.mcp, opts)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", src, err))
			continue
		}
		warnings = append(warnings, w...)
		entry := &Entry{Agent: a, Manifest: m}
		if err := reg.attachMemory(ctx, entry, opts); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", src, err))
			continue
		}
		reg.agents[id] = entry
		reg.order = append(reg.order, id)
	}
	if err := errors.Join(errs...); err != nil {
		_ = reg.Close()
		return nil, nil, err
	}
	sort.Strings(reg.order)
	return reg, warnings, nil
}

func buildAgent(set *decode.Set, m *v1alpha1.Agent, compiled map[*v1alpha1.Tool]*tools.Tool, servers map[*v1alpha1.MCPServer]serverTools, pool *tools.MCPServers, opts Options) (*agent.Agent, []Warning, error) {
	id := m.EffectiveAgentID()
	a := &agent.Agent{
		ID:           id,
		Name:         m.EffectiveDisplayName(),
		Instructions: m.Spec.Instructions,
		Tools:        map[string]*tools.Tool{},
		Approvals:    map[string]agent.Approval{},
		MaxSteps:     m.EffectiveMaxSteps(),
	}
	var warnings []Warning
	disable := func(key, toolID, reason string) {
		a.Disabled = append(a.Disabled, agent.DisabledTool{Key: key, ToolID: toolID, Reason: reason})
		warnings = append(warnings, Warning{Agent: id, Message: reason})
	}
	var mcpEntries []v1alpha1.AgentTool
	for _, ref := range m.Spec.Tools {
		if ref.AgentRef != nil || ref.RemoteAgentRef != nil {
			t, why := askLocal(set, m, ref, opts)
			if t == nil {
				disable(ref.Key, "", why)
				continue
			}
			a.Tools[ref.Key] = t
			a.ToolKeys = append(a.ToolKeys, ref.Key)
			if ref.RequireApproval {
				a.Approvals[ref.Key] = agent.Approval{Timeout: ref.EffectiveApprovalTimeout()}
			}
			continue
		}
		if ref.ToolRef == nil {
			mcpEntries = append(mcpEntries, ref)
			continue
		}
		t := set.Tool(m.Namespace, ref.ToolRef.Name)
		switch {
		case t == nil:
			disable(ref.Key, "", fmt.Sprintf("tool key %q refers to Tool %q, which does not exist; the tool will not fire", ref.Key, ref.ToolRef.Name))
		case t.Spec.ID != ref.Key:
			disable(ref.Key, t.Spec.ID, fmt.Sprintf("tool key %q differs from the id %q of Tool %q; the tool will not fire until the key equals the id exactly", ref.Key, t.Spec.ID, t.Name))
		case compiled[t] == nil:
			disable(ref.Key, t.Spec.ID, fmt.Sprintf("Tool %q is invalid; the tool will not fire", t.Name))
		default:
			a.Tools[ref.Key] = compiled[t]
			a.ToolKeys = append(a.ToolKeys, ref.Key)
			if ref.RequireApproval {
				a.Approvals[ref.Key] = agent.Approval{Timeout: ref.EffectiveApprovalTimeout()}
			}
		}
	}
	for _, d := range bindMCP(set, m, a, mcpEntries, servers, pool) {
		disable(d.Key, "", d.Message)
	}
	for _, ref := range m.Spec.FrontendActions {
		f := set.FrontendAction(m.Namespace, ref.Name)
		if f == nil {
			warnings = append(warnings, Warning{Agent: id, Message: fmt.Sprintf("FrontendAction %q does not exist; it is not offered to the model", ref.Name)})
			continue
		}
		if _, clash := a.Tools[f.Spec.Name]; clash {
			warnings = append(warnings, Warning{Agent: id, Message: fmt.Sprintf("FrontendAction %q has the same name %q as a server tool; the server tool wins", f.Name, f.Spec.Name)})
			continue
		}
		fa := agent.FrontendAction{Name: f.Spec.Name, DisplayName: f.Spec.DisplayName, ExecutionText: f.Spec.ExecutionText, Description: f.Spec.Description}
		if f.Spec.Parameters != nil {
			fa.Parameters = f.Spec.Parameters.Raw
		}
		a.FrontendActions = append(a.FrontendActions, fa)
	}
	spec, err := modelOf(set, m)
	if err != nil {
		return nil, nil, err
	}
	a.Provider = cmp.Or(string(spec.Provider), string(v1alpha1.ModelProviderOpenAI))
	cfg, err := modelConfig(spec, opts)
	if err != nil {
		return nil, nil, err
	}
	a.Model = llm.NewOpenAI(cfg)
	return a, warnings, nil
}

// modelOf is the model an Agent calls: its inline spec.model, or the ModelConfig it names with
// the Agent's own settings over its defaults (the operator merges the same way before it
// renders a pod's config, so pods never see a configRef).
func modelOf(set *decode.Set, m *v1alpha1.Agent) (v1alpha1.ModelSpec, error) {
	ref := m.Spec.Model.ConfigRef
	if ref == nil {
		return m.Spec.Model, nil
	}
	mc := set.ModelConfig(m.Namespace, ref.Name)
	if mc == nil {
		return v1alpha1.ModelSpec{}, fmt.Errorf("spec.model.configRef: ModelConfig %q does not exist in namespace %q; add it to the manifests", ref.Name, m.Namespace)
	}
	return mc.Spec.Merged(m.Spec.Model), nil
}

func modelConfig(spec v1alpha1.ModelSpec, opts Options) (llm.Config, error) {
	cfg := llm.Config{
		Model:      spec.Name,
		BaseURL:    spec.BaseURL,
		Timeout:    llm.DefaultTimeout,
		MaxRetries: llm.DefaultMaxRetries,
		HTTPClient: opts.HTTPClient,
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = opts.Getenv(BaseURLEnv)
	}
	if spec.Timeout != nil && spec.Timeout.Duration > 0 {
		cfg.Timeout = spec.Timeout.Duration
	}
	if spec.MaxRetries != nil {
		cfg.MaxRetries = int(*spec.MaxRetries)
	}
	parse := func(name, s string) (*float64, error) {
		if s == "" {
			return nil, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("spec.model.%s: %q is not a decimal number", name, s)
		}
		return &f, nil
	}
	var err error
	if cfg.Temperature, err = parse("temperature", spec.Temperature); err != nil {
		return cfg, err
	}
	if cfg.TopP, err = parse("topP", spec.TopP); err != nil {
		return cfg, err
	}
	if spec.MaxTokens != nil {
		v := int64(*spec.MaxTokens)
		cfg.MaxTokens = &v
	}
	cfg.APIKey = opts.Getenv(llm.APIKeyEnv)
	if ref := spec.APIKeySecretRef; ref != nil {
		cfg.KeyRequired = true
		cfg.KeySource = fmt.Sprintf("spec.model.apiKeySecretRef names key %q of Secret %q", ref.Key, ref.Name)
		if cfg.APIKey == "" && opts.Secrets != nil {
			if data, err := opts.Secrets.Secret(ref.Name); err == nil {
				cfg.APIKey = data[ref.Key]
			}
		}
	}
	if spec.Provider == v1alpha1.ModelProviderAzureOpenAI && spec.Azure != nil {
		az := spec.Azure
		cfg.Azure = &llm.AzureConfig{Endpoint: az.Endpoint, Deployment: az.Deployment, APIVersion: az.APIVersion}
		cfg.Azure.Deployment = cmp.Or(cfg.Azure.Deployment, spec.Name)
		if ref := az.TokenSecretRef; ref != nil {
			cfg.Azure.Token = opts.Getenv(llm.AzureTokenEnv)
			if cfg.Azure.Token == "" && opts.Secrets != nil {
				if data, err := opts.Secrets.Secret(ref.Name); err == nil {
					cfg.Azure.Token = data[ref.Key]
				}
			}
			cfg.KeyRequired = cfg.Azure.Token == ""
			cfg.KeySource = fmt.Sprintf("spec.model.azure.tokenSecretRef names key %q of Secret %q", ref.Key, ref.Name)
		} else if spec.APIKeySecretRef == nil {
			cfg.KeyRequired, cfg.KeySource = true, "provider azure-openai needs spec.model.apiKeySecretRef or spec.model.azure.tokenSecretRef"
		}
	}
	if o := opts.ModelOverride; o != nil {
		cfg.BaseURL, cfg.APIKey, cfg.KeyRequired, cfg.Azure = o.BaseURL, o.APIKey, false, nil
	}
	cfg.BaseURL = cmp.Or(cfg.BaseURL, llm.DefaultBaseURL)
	return cfg, nil
}

// attachMemory opens (or shares) the agent's memory store.
func (r *Registry) attachMemory(ctx context.Context, e *Entry, opts Options) error {
	spec := e.Manifest.Spec.Memory
	url := opts.MemoryDefault
	e.LastMessages = DefaultLastMessages
	if spec != nil {
		if spec.LastMessages != nil {
			e.LastMessages = int(*spec.LastMessages)
		}
		switch {
		case spec.URL != "":
			url = spec.URL
		case spec.URLSecretRef != nil:
			url = opts.Getenv(secrets.MemoryURLEnv)
			if url == "" && opts.Secrets != nil {
				if data, err := opts.Secrets.Secret(spec.URLSecretRef.Name); err == nil {
					url = data[spec.URLSecretRef.Key]
				}
			}
			if url == "" {
				return fmt.Errorf("spec.memory.urlSecretRef: set %s or provide key %q of Secret %q", secrets.MemoryURLEnv, spec.URLSecretRef.Key, spec.URLSecretRef.Name)
			}
		}
	}
	if url == "" {
		return nil
	}
	if s, ok := r.stores[url]; ok {
		e.Memory = s
		return nil
	}
	opened, err := memory.Open(ctx, url)
	if err != nil {
		return fmt.Errorf("spec.memory: %w", err)
	}
	s := memory.Traced(opened)
	r.stores[url] = s
	e.Memory = s
	return nil
}
