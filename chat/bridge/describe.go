package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/agentry-dev/agentry/chat/model"
)

// Description is what an Agentry (or Mastra) agent says of itself at GET /api/agents/{id}:
// the display fields of its manifest's spec.platform and its frontend actions.
type Description struct {
	Name     string `json:"name"`
	Platform *struct {
		Greeting            string   `json:"greeting"`
		IntroductoryMessage string   `json:"introductoryMessage"`
		SuggestedMessages   []string `json:"suggestedMessages"`
		IconURL             string   `json:"iconURL"`
	} `json:"platform"`
	FrontendActions map[string]struct {
		Name          string          `json:"name"`
		DisplayName   string          `json:"displayName"`
		ExecutionText string          `json:"executionText"`
		Description   string          `json:"description"`
		Parameters    json.RawMessage `json:"parameters"`
	} `json:"frontendActions"`
	// Capabilities are what the agent says it supports (AG-UI's AgentCapabilities, which
	// Agentry's runtime also serves at …/ag-ui/capabilities).
	Capabilities json.RawMessage `json:"capabilities"`
}

// agentRoute is an agent platform URL: …/api/agents/{id}/ag-ui or …/generate.
var agentRoute = regexp.MustCompile(`^(.*/api/agents/[^/]+)/(ag-ui|generate)/?$`)

// DescriptionURL is where the agent called at url describes itself; false for a URL that is
// not an agent platform route (an agent of another kind says nothing of itself).
func DescriptionURL(url string) (string, bool) {
	m := agentRoute.FindStringSubmatch(url)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// Describe reads the description of the agent at url with the call's headers (its stored
// headers, or a token for it), through client (the egress rules of the URL's kind).
func Describe(ctx context.Context, client *http.Client, rawURL string, headers map[string]string) (Description, error) {
	var d Description
	u, ok := DescriptionURL(rawURL)
	if !ok {
		return d, fmt.Errorf("%q is not an agent route (…/api/agents/{id}/ag-ui or /generate)", redactURL(rawURL))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return d, fmt.Errorf("invalid agent URL: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		return d, fmt.Errorf("failed to read the agent's description: %s", probeFailure(ctx, err))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return d, fmt.Errorf("failed to read the agent's description: the agent answered %s", res.Status)
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&d); err != nil {
		return d, fmt.Errorf("failed to read the agent's description: %w", err)
	}
	return d, nil
}

// redactURL is url without its query (which may carry a key).
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "an invalid URL"
	}
	u.RawQuery, u.User = "", nil
	return u.String()
}

// Fill copies the description's display fields into the configuration's empty ones, and
// returns its frontend actions the agent does not have yet (by name, in name order). What an
// admin typed is never replaced; capabilities are the agent's to say, and replace the known ones.
func (d Description) Fill(cfg *model.AgentConfig, have []string) []model.FrontendAction {
	if c := model.ParseCapabilities(d.Capabilities); c != nil {
		cfg.Capabilities = c
	}
	if p := d.Platform; p != nil {
		fill := func(dst *string, v string) {
			if *dst == "" {
				*dst = v
			}
		}
		fill(&cfg.Greeting, p.Greeting)
		fill(&cfg.IntroductoryMessage, p.IntroductoryMessage)
		fill(&cfg.Icon, p.IconURL)
		if len(cfg.SuggestedMessages) == 0 && len(p.SuggestedMessages) <= model.MaxSuggestedMessages {
			cfg.SuggestedMessages = slices.Clone(p.SuggestedMessages)
		}
	}
	var out []model.FrontendAction
	for name, f := range d.FrontendActions {
		if slices.Contains(have, name) || !model.ValidAgentName.MatchString(name) {
			continue
		}
		a := model.FrontendAction{AgentID: cfg.AgentID, Name: name, DisplayName: f.DisplayName, ExecutionText: f.ExecutionText, Description: f.Description, Parameters: f.Parameters}
		if a.DisplayName == "" {
			a.DisplayName = name
		}
		if len(a.Parameters) == 0 || string(a.Parameters) == "null" {
			a.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b model.FrontendAction) int { return strings.Compare(a.Name, b.Name) })
	return out
}
