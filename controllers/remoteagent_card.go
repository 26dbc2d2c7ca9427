package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/mcpclient"
)

// maxCardDescription bounds a card's description as Agents' tools carry it (a Tool's
// description is at most 4096 characters).
const maxCardDescription = 4096

// errCard is a card the operator cannot use; its text is the condition's message.
type errCard struct{ msg string }

func (e *errCard) Error() string { return e.msg }

// readCard reads the agent card at raw: a URL ending in .json as it is, else its base URL's
// /.well-known/agent-card.json; headers go with the request. The card must name a JSON-RPC
// endpoint (what Agentry's agents speak).
func readCard(ctx context.Context, hc *http.Client, raw string, headers map[string]string) (*v1alpha1.RemoteAgentCard, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &errCard{fmt.Sprintf("spec.url is not a URL: %v", err)}
	}
	var opts []agentcard.ResolveOption
	base := raw
	if strings.HasSuffix(u.Path, ".json") {
		opts = append(opts, agentcard.WithPath(u.Path))
		base = (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
	}
	for k, v := range headers {
		opts = append(opts, agentcard.WithRequestHeader(k, v))
	}
	card, err := agentcard.NewResolver(hc).Resolve(ctx, base, opts...)
	if err != nil {
		return nil, err
	}
	return cardStatus(card)
}

// cardStatus is the part of a card the status keeps, or why the card cannot be used.
func cardStatus(card *a2a.AgentCard) (*v1alpha1.RemoteAgentCard, error) {
	endpoint := ""
	switch card.PreferredTransport {
	case "", a2a.TransportProtocolJSONRPC:
		endpoint = card.URL
	default:
		for _, i := range card.AdditionalInterfaces {
			if i.Transport == a2a.TransportProtocolJSONRPC {
				endpoint = i.URL
			}
		}
	}
	if endpoint == "" {
		return nil, &errCard{fmt.Sprintf("the card offers no JSON-RPC endpoint (preferred transport %q), the only A2A transport Agentry's agents speak", card.PreferredTransport)}
	}
	if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &errCard{fmt.Sprintf("the card's endpoint %q is not an http(s) URL", endpoint)}
	}
	if strings.TrimSpace(card.Name) == "" {
		return nil, &errCard{"the card has no name"}
	}
	out := &v1alpha1.RemoteAgentCard{Name: card.Name, Description: truncate(card.Description, maxCardDescription), URL: endpoint, ProtocolVersion: card.ProtocolVersion}
	for i, s := range card.Skills {
		if i == v1alpha1.MaxRemoteAgentSkills {
			break
		}
		out.Skills = append(out.Skills, v1alpha1.RemoteAgentSkill{ID: s.ID, Name: s.Name, Description: truncate(s.Description, 1024)})
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// classifyCardError is a reason and a message for a failed card read: the card's own problems
// and HTTP answers here, the network's as for MCP servers.
func classifyCardError(err error) *mcpclient.Error {
	mk := func(reason, format string, args ...any) *mcpclient.Error {
		return &mcpclient.Error{Reason: reason, Message: fmt.Sprintf(format, args...), Err: err}
	}
	var bad *errCard
	var status *agentcard.ErrStatusNotOK
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &bad):
		return mk(v1alpha1.ReasonProtocolError, "%s", bad.msg)
	case errors.As(err, &status):
		switch code := status.StatusCode; {
		case code == http.StatusUnauthorized || code == http.StatusForbidden:
			return mk(v1alpha1.ReasonUnauthorized, "the card's URL answered %d: it needs credentials (spec.headersSecretRef) or refused the ones sent", code)
		case code >= 300 && code < 400:
			return mk(v1alpha1.ReasonProtocolError, "the card's URL answered a redirect (%d), which Agentry does not follow (it would send the headers elsewhere); put the final URL in spec.url", code)
		case code == http.StatusNotFound:
			return mk(v1alpha1.ReasonProtocolError, "no agent card there (404): is spec.url the card (…/agent-card.json) or the agent's base URL?")
		case code >= 500:
			return mk(v1alpha1.ReasonUnreachable, "the card's URL answered %d", code)
		default:
			return mk(v1alpha1.ReasonProtocolError, "the card's URL answered %d", code)
		}
	case errors.As(err, &syntax), errors.As(err, &typ):
		return mk(v1alpha1.ReasonProtocolError, "the answer is not an agent card (JSON): %v", errors.Unwrap(err))
	}
	return mcpclient.Classify(err)
}
