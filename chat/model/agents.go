package model

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// AgentProvider is the protocol an agent's Deployment URL speaks.
type AgentProvider string

const (
	ProviderAGUI   AgentProvider = "ag-ui"  // AG-UI: RunAgentInput in, text/event-stream out
	ProviderMastra AgentProvider = "mastra" // Mastra: {messages} to the /generate URL, JSON out
	ProviderA2A    AgentProvider = "a2a"    // Agent2Agent: message/stream to the agent card's endpoint
)

// AgentConfig is an agent on the chat platform, as an admin configures it (DESIGN §6.2). Its
// Headers are write-only: they are stored encrypted and never part of this type; HasHeaders
// only tells whether some are configured.
type AgentConfig struct {
	AgentID             string        `json:"agentId"`
	Provider            AgentProvider `json:"provider"`
	Name                string        `json:"name"`
	Icon                string        `json:"icon,omitempty"`
	Greeting            string        `json:"greeting,omitempty"`
	IntroductoryMessage string        `json:"introductoryMessage,omitempty"`
	SuggestedMessages   []string      `json:"suggestedMessages"`
	// DeploymentURL is where the service POSTs; AgentRef instead names an in-cluster Agent
	// ("namespace/name") whose status gives the URL. Exactly one of them is set.
	DeploymentURL string `json:"deploymentUrl,omitempty"`
	AgentRef      string `json:"agentRef,omitempty"`
	HasHeaders    bool   `json:"hasHeaders"`
	Enabled       bool   `json:"enabled"`
	// Approvers decide the tool calls the agent stops for (uids, group:<guid>:admins,
	// group:<guid>:moderators); empty means the user whose message started the run.
	Approvers []string `json:"approvers"`
	// Audience is who may use the agent: uids, group:<guid> (that chat group's members) and
	// idp:<group> (holders of that identity provider group); empty means everyone. Anyone else
	// does not see the agent and is refused when they message or mention it.
	Audience []string `json:"audience"`
	// Auth is how the chat proves who is asking: AgentAuthHeaders (the stored headers only, the
	// default), AgentAuthChatJWT (also a short-lived token the chat signs for the person whose
	// message started the run, audience TokenAudience, default the URL it calls) or
	// AgentAuthServiceAccount (an in-cluster Agent only: the chat's own ServiceAccount token,
	// audience TokenAudience, default agentry.dev/agents/<namespace>/<name>).
	Auth          AgentAuth `json:"auth"`
	TokenAudience string    `json:"tokenAudience,omitempty"`
	// Prices are what the agent's tokens cost, for the admins' cost per agent; nil: unknown,
	// and no cost is shown.
	Prices *AgentPrices `json:"prices,omitempty"`
	// Capabilities are what the agent said it supports when the chat last read its
	// description (an Agentry agent's GET /api/agents/{id} capabilities); nil: not known.
	Capabilities *AgentCapabilities `json:"capabilities,omitempty"`
	CreatedAt    time.Time          `json:"createdAt"`
	UpdatedAt    time.Time          `json:"updatedAt"`
}

// FrontendAction is a client-side tool of an agent: the agent fills Parameters and the client
// executes it, showing DisplayName and ExecutionText meanwhile.
type FrontendAction struct {
	AgentID       string          `json:"agentId"`
	Name          string          `json:"name"`
	DisplayName   string          `json:"displayName"`
	ExecutionText string          `json:"executionText,omitempty"`
	Description   string          `json:"description"`
	Parameters    json.RawMessage `json:"parameters"`
	CreatedAt     time.Time       `json:"createdAt"`
	UpdatedAt     time.Time       `json:"updatedAt"`
}

// AgentCapabilities are the parts of AG-UI's AgentCapabilities (@ag-ui/core 1.0) the chat keeps
// of what an agent says it supports, for the admins' agent list: a nil field was not declared,
// which is not the same as false. Tools keep their names only (not their schemas).
type AgentCapabilities struct {
	Transport      *TransportCapabilities      `json:"transport,omitempty"`
	Tools          *ToolsCapabilities          `json:"tools,omitempty"`
	HumanInTheLoop *HumanInTheLoopCapabilities `json:"humanInTheLoop,omitempty"`
	Reasoning      *ReasoningCapabilities      `json:"reasoning,omitempty"`
}

// The parts of AG-UI's capabilities the chat keeps as the protocol spells them.
type (
	TransportCapabilities      = agui.TransportCapabilities
	HumanInTheLoopCapabilities = agui.HumanInTheLoopCapabilities
	ReasoningCapabilities      = agui.ReasoningCapabilities
)

// ToolsCapabilities: AG-UI's tools capabilities, the agent's own tools by name.
type ToolsCapabilities struct {
	Supported      *bool            `json:"supported,omitempty"`
	ClientProvided *bool            `json:"clientProvided,omitempty"`
	Items          []CapabilityTool `json:"items,omitempty"`
}

// CapabilityTool is one of the agent's own tools, by name.
type CapabilityTool struct {
	Name string `json:"name"`
}

// maxCapabilityTools bounds the tool names kept: a list to show, not a payload to store.
const maxCapabilityTools = 200

// ParseCapabilities keeps of an AG-UI AgentCapabilities object what AgentCapabilities holds;
// nil for anything else (absent, not an object, malformed): the agent said nothing usable.
func ParseCapabilities(raw json.RawMessage) *AgentCapabilities {
	var c AgentCapabilities
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &c) != nil {
		return nil
	}
	if c.Tools != nil && len(c.Tools.Items) > maxCapabilityTools {
		c.Tools.Items = c.Tools.Items[:maxCapabilityTools]
	}
	return &c
}

// AgentPrices are the prices of an agent's model per million input and output tokens, in US
// dollars (what the web app shows; the chat only multiplies).
type AgentPrices struct {
	InputPerMillion  float64 `json:"inputPerMillion"`
	OutputPerMillion float64 `json:"outputPerMillion"`
}

// MaxPricePerMillion bounds a price: far above any model's, low enough that a typo shows.
const MaxPricePerMillion = 10000

// Validate checks the prices (nil, no prices, is valid).
func (p *AgentPrices) Validate() error {
	if p == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"prices.inputPerMillion", p.InputPerMillion}, {"prices.outputPerMillion", p.OutputPerMillion}} {
		// NaN fails both comparisons, so it is refused too.
		if !(f.v >= 0 && f.v <= MaxPricePerMillion) {
			return Errorf(ErrValidation, "%s must be a number from 0 to %d", f.name, MaxPricePerMillion)
		}
	}
	return nil
}

// Cost is what in input and out output tokens cost at these prices.
func (p AgentPrices) Cost(in, out int64) float64 {
	return (float64(in)*p.InputPerMillion + float64(out)*p.OutputPerMillion) / 1e6
}

// AgentUsage is the token usage of one agent call (what its RUN_FINISHED reported), recorded
// by the bridge for the admins' usage per agent.
type AgentUsage struct {
	AgentID string
	// RunID is the chat's run (a person's message answered); CallID the agent call of it (a
	// run with frontend actions calls the agent more than once).
	RunID        string
	CallID       string
	InputTokens  int64
	OutputTokens int64
	// At is when the call finished (zero: now).
	At time.Time
}

// UsageTotals are an agent's runs and tokens over a period.
type UsageTotals struct {
	AgentID      string `json:"-"`
	Runs         int64  `json:"runs"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	// Cost is set only for an agent with prices.
	Cost *float64 `json:"cost,omitempty"`
}

// ValidAgentName is the shape of agent ids and frontend action names.
var ValidAgentName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Limits of agent configuration fields.
const (
	MaxSuggestedMessages = 10
	MaxHeaders           = 32
)

func checkField(field, v string, max int, required bool) error {
	if required && strings.TrimSpace(v) == "" {
		return Errorf(ErrValidation, "%s is required", field)
	}
	if !utf8.ValidString(v) {
		return Errorf(ErrValidation, "%s is not valid UTF-8", field)
	}
	if utf8.RuneCountInString(v) > max {
		return Errorf(ErrValidation, "%s is longer than %d characters", field, max)
	}
	return nil
}

// AgentAuth is how the chat authenticates to an agent.
type AgentAuth string

const (
	AgentAuthHeaders AgentAuth = "headers"
	AgentAuthChatJWT AgentAuth = "chat-jwt"
	// AgentAuthServiceAccount: the chat's ServiceAccount token (spec.endpoint.auth.serviceAccounts).
	AgentAuthServiceAccount AgentAuth = "service-account"
)

// Validate checks an agent configuration (not the https rule, which depends on the server's
// mode and is the API's).
func (a AgentConfig) Validate() error {
	if !ValidAgentName.MatchString(a.AgentID) {
		return Errorf(ErrValidation, "agentId must be 1-64 letters, digits, _ or -")
	}
	switch a.Provider {
	case ProviderAGUI, ProviderMastra, ProviderA2A:
	default:
		return Errorf(ErrValidation, "provider must be ag-ui, mastra or a2a")
	}
	for _, f := range []struct {
		name, v  string
		max      int
		required bool
	}{
		{"name", a.Name, 100, true}, {"icon", a.Icon, 1000, false}, {"greeting", a.Greeting, 1000, false},
		{"introductoryMessage", a.IntroductoryMessage, 4000, false}, {"deploymentUrl", a.DeploymentURL, 2000, false},
		{"agentRef", a.AgentRef, 320, false}, {"tokenAudience", a.TokenAudience, 512, false},
	} {
		if err := checkField(f.name, f.v, f.max, f.required); err != nil {
			return err
		}
	}
	if err := ValidateApprovers(a.Approvers); err != nil {
		return err
	}
	switch a.Auth {
	case "", AgentAuthHeaders, AgentAuthChatJWT:
	case AgentAuthServiceAccount:
		if a.AgentRef == "" {
			return Errorf(ErrValidation, "auth: a ServiceAccount token is for in-cluster Agents only; set agentRef (namespace/name)")
		}
	default:
		return Errorf(ErrValidation, "auth must be headers, chat-jwt or service-account")
	}
	if err := ValidateAudience(a.Audience); err != nil {
		return err
	}
	if err := a.Prices.Validate(); err != nil {
		return err
	}
	if len(a.SuggestedMessages) > MaxSuggestedMessages {
		return Errorf(ErrValidation, "suggestedMessages holds more than %d messages", MaxSuggestedMessages)
	}
	for i, m := range a.SuggestedMessages {
		if err := checkField("suggestedMessages["+itoa(i)+"]", m, 500, true); err != nil {
			return err
		}
	}
	switch {
	case a.DeploymentURL == "" && a.AgentRef == "":
		return Errorf(ErrValidation, "deploymentUrl is required (or agentRef, naming an in-cluster Agent as namespace/name)")
	case a.DeploymentURL != "" && a.AgentRef != "":
		return Errorf(ErrValidation, "set either deploymentUrl or agentRef, not both")
	case a.AgentRef != "":
		if !agentRef.MatchString(a.AgentRef) {
			return Errorf(ErrValidation, "agentRef must be namespace/name (lowercase letters, digits, '-' and '.')")
		}
		return nil
	}
	u, err := url.Parse(a.DeploymentURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Errorf(ErrValidation, "deploymentUrl must be an absolute http(s) URL")
	}
	if u.User != nil {
		return Errorf(ErrValidation, "deploymentUrl must not hold credentials: configure headers instead")
	}
	return nil
}

// ValidateHeaders checks write-only agent headers: names are HTTP header names. Values are
// never part of an error message.
func ValidateHeaders(h map[string]string) error {
	if len(h) > MaxHeaders {
		return Errorf(ErrValidation, "headers holds more than %d entries", MaxHeaders)
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !headerName.MatchString(k) {
			return Errorf(ErrValidation, "headers: %q is not a valid header name", k)
		}
		if len(h[k]) > 8000 || strings.ContainsAny(h[k], "\r\n\x00") {
			return Errorf(ErrValidation, "headers.%s has an invalid value (too long or holds line breaks)", k)
		}
	}
	return nil
}

var agentRef = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$")

// Validate checks a frontend action, its Parameters as the specification says.
func (f FrontendAction) Validate() error {
	if !ValidAgentName.MatchString(f.AgentID) {
		return Errorf(ErrValidation, "agentId must be 1-64 letters, digits, _ or -")
	}
	if !ValidAgentName.MatchString(f.Name) {
		return Errorf(ErrValidation, "name must be 1-64 letters, digits, _ or -")
	}
	if err := checkField("displayName", f.DisplayName, 100, true); err != nil {
		return err
	}
	if err := checkField("executionText", f.ExecutionText, 500, false); err != nil {
		return err
	}
	if err := checkField("description", f.Description, 4000, true); err != nil {
		return err
	}
	return ValidateParameters(f.Parameters)
}

// ValidateParameters checks a frontend action's JSON Schema: an object with type "object",
// properties (each with a type and a description) and an optional required array naming
// properties. The error names the offending field.
func ValidateParameters(raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return Errorf(ErrValidation, "parameters is required")
	}
	var schema map[string]json.RawMessage
	if err := json.Unmarshal(raw, &schema); err != nil || schema == nil {
		return Errorf(ErrValidation, "parameters must be a JSON object")
	}
	var typ string
	if err := json.Unmarshal(schema["type"], &typ); err != nil || typ != "object" {
		return Errorf(ErrValidation, "parameters.type must be \"object\"")
	}
	var props map[string]map[string]json.RawMessage
	if p, ok := schema["properties"]; !ok {
		return Errorf(ErrValidation, "parameters.properties is required")
	} else if err := json.Unmarshal(p, &props); err != nil || props == nil {
		return Errorf(ErrValidation, "parameters.properties must be an object whose values are objects")
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		field := "parameters.properties." + k
		var t any
		if err := json.Unmarshal(props[k]["type"], &t); err != nil || t == nil {
			return Errorf(ErrValidation, "%s.type is required", field)
		}
		switch tv := t.(type) {
		case string:
			if tv == "" {
				return Errorf(ErrValidation, "%s.type is required", field)
			}
		case []any:
		default:
			return Errorf(ErrValidation, "%s.type must be a string or an array of strings", field)
		}
		var d string
		if err := json.Unmarshal(props[k]["description"], &d); err != nil || strings.TrimSpace(d) == "" {
			return Errorf(ErrValidation, "%s.description is required", field)
		}
	}
	if r, ok := schema["required"]; ok {
		var req []string
		if err := json.Unmarshal(r, &req); err != nil {
			return Errorf(ErrValidation, "parameters.required must be an array of property names")
		}
		for i, n := range req {
			if _, ok := props[n]; !ok {
				return Errorf(ErrValidation, "parameters.required[%d] names %q, which is not in parameters.properties", i, n)
			}
		}
	}
	return nil
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
