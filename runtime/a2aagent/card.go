// Package a2aagent serves an agent over the Agent2Agent protocol with the official Go SDK
// (a2a-go): its agent card, built from the manifest, and an AgentExecutor that runs the agent
// for each message and streams its text as the task's artifact.
package a2aagent

import (
	"cmp"
	"sort"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/agentry-dev/agentry/runtime/registry"
)

// ProtocolVersion is the A2A protocol version a2a-go v0.3 speaks.
const ProtocolVersion = "0.3.0"

// Card is the agent card of e, whose A2A endpoint is url: its name and description from the
// manifest, one skill per tool, streaming, and the auth schemes the endpoint accepts (the same
// as the agent's other routes), never a secret.
func Card(e *registry.Entry, url, version string) *a2a.AgentCard {
	m := e.Manifest
	card := &a2a.AgentCard{
		Name:               m.EffectiveDisplayName(),
		Description:        description(e),
		URL:                url,
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		ProtocolVersion:    ProtocolVersion,
		Version:            cmp.Or(version, "dev"),
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills:             skills(e),
	}
	if p := m.Spec.Platform; p != nil && p.IconURL != "" {
		card.IconURL = p.IconURL
	}
	schemes, security := authSchemes(e)
	if len(schemes) > 0 {
		card.SecuritySchemes, card.Security = schemes, security
	}
	return card
}

func description(e *registry.Entry) string { return e.Manifest.A2ADescription() }

// skills are the agent's tools, in key order, plus one for the agent itself when it has none.
func skills(e *registry.Entry) []a2a.AgentSkill {
	a := e.Agent
	keys := append([]string(nil), a.ToolKeys...)
	sort.Strings(keys)
	out := make([]a2a.AgentSkill, 0, len(keys)+1)
	for _, k := range keys {
		t := a.Tools[k]
		out = append(out, a2a.AgentSkill{ID: k, Name: k, Description: cmp.Or(t.Description, k), Tags: []string{"tool"}})
	}
	if len(out) == 0 {
		out = append(out, a2a.AgentSkill{ID: "chat", Name: "chat", Description: description(e), Tags: []string{"chat"}})
	}
	return out
}

// authSchemes are the schemes of spec.endpoint.auth: each header of the headers Secret as an API
// key (its name only), a bearer token for jwt and serviceAccounts. Any one passes.
func authSchemes(e *registry.Entry) (a2a.NamedSecuritySchemes, []a2a.SecurityRequirements) {
	ep := e.Manifest.Spec.Endpoint
	if ep == nil || ep.Auth == nil {
		return nil, nil
	}
	schemes := a2a.NamedSecuritySchemes{}
	var security []a2a.SecurityRequirements
	if ep.Auth.JWT != nil || len(ep.Auth.ServiceAccounts) > 0 {
		schemes["bearer"] = a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "JWT",
			Description: "A JWT of the agent's issuer, or a ServiceAccount token of this cluster for the agent's audience"}
		security = append(security, a2a.SecurityRequirements{"bearer": a2a.SecuritySchemeScopes{}})
	}
	if ep.Auth.HeadersSecretRef != nil {
		schemes["headers"] = a2a.APIKeySecurityScheme{In: a2a.APIKeySecuritySchemeInHeader, Name: "Authorization",
			Description: "The headers the agent's operator gave you, with their exact values"}
		security = append(security, a2a.SecurityRequirements{"headers": a2a.SecuritySchemeScopes{}})
	}
	return schemes, security
}
