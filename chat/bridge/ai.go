package bridge

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/platform/ids"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// SettingAssistant names the agent that answers the AI features (smart replies, conversation
// starters, translation); unset turns them off.
const SettingAssistant = "ai.assistant"

// Assistant returns the configured, enabled assistant agent; ErrAIDisabled otherwise.
func (b *Bridge) Assistant(ctx context.Context) (model.AgentConfig, error) {
	id, err := b.o.Store.Setting(ctx, SettingAssistant)
	if err != nil {
		return model.AgentConfig{}, err
	}
	if id == "" {
		return model.AgentConfig{}, model.Errorf(model.ErrAIDisabled, "AI features are off: no assistant agent is configured (PUT /chat/v1/ai/assistant)")
	}
	cfg, err := b.o.Store.GetAgent(ctx, id)
	if err != nil || !cfg.Enabled {
		return model.AgentConfig{}, model.Errorf(model.ErrAIDisabled, "AI features are off: the assistant agent %q is not enabled", id)
	}
	return cfg, nil
}

// ServiceSubject is the subject of the tokens the chat signs for its own calls (AI features),
// which no person starts.
const ServiceSubject = "agentry-chat"

// Ask sends one prompt to the assistant agent through the same path as a conversation (the
// agent's URL, headers and provider) and returns its text. Nothing is stored or relayed.
func (b *Bridge) Ask(ctx context.Context, prompt string) (string, error) {
	cfg, err := b.Assistant(ctx)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, min(b.o.RunTimeout, 60*time.Second))
	defer cancel()
	headers, err := b.o.Store.AgentHeaders(ctx, cfg.AgentID)
	if err != nil {
		return "", err
	}
	p := &Plan{b: b, cfg: cfg, quiet: true, run: model.AgentRun{ConversationID: ids.New("ai"), RunID: ids.New("run"), AgentID: cfg.AgentID}}
	url, rerr := b.endpoint(ctx, cfg)
	if rerr == nil {
		// No person asks here: the chat service itself is the subject of a chat-jwt token.
		if headers, err = b.Credentials(ctx, cfg, url, ServiceSubject, "", headers); err != nil {
			rerr = fail(model.RunErrUnauthorized, err.Error(), err)
		}
	}
	var out *output
	if rerr == nil {
		msgs := []model.Message{{ID: 1, Category: model.CategoryMessage, Type: model.TypeText, Sender: "user", Text: prompt}}
		if cfg.Provider == model.ProviderMastra {
			out, rerr = b.callMastra(ctx, p, p.run.RunID, url, headers, msgs)
		} else {
			out, rerr = b.callAGUI(ctx, p, url, headers, runInput(p.run.ConversationID, p.run.RunID, toAGUI(cfg.AgentID, false, msgs), []agui.Tool{}), nil)
		}
	}
	if rerr != nil {
		b.log.Info("assistant agent failed", "agent", cfg.AgentID, "code", rerr.Code, "reason", rerr.Reason, "cause", errString(rerr.Cause))
		return "", model.Errorf(model.ErrAgentFailed, "the assistant agent could not answer: %s", rerr.Reason)
	}
	var text strings.Builder
	for _, e := range out.entries {
		text.WriteString(e.text.String())
	}
	return strings.TrimSpace(text.String()), nil
}

var listMarker = regexp.MustCompile(`^\s*(?:[-*•]|\d+[.)])\s*`)

// ParseList reads a list the assistant answered: a JSON array of strings (also inside other
// text, e.g. a fenced block), or else one item per line with list markers removed. At most n
// items, each at most 200 characters, empty and duplicate items dropped.
func ParseList(text string, n int) []string {
	var items []string
	if i, j := strings.Index(text, "["), strings.LastIndex(text, "]"); i >= 0 && j > i {
		_ = json.Unmarshal([]byte(text[i:j+1]), &items)
	}
	if len(items) == 0 {
		for _, line := range strings.Split(text, "\n") {
			line = strings.Trim(listMarker.ReplaceAllString(line, ""), " \t\"'`")
			if line != "" && !strings.HasPrefix(line, "```") {
				items = append(items, line)
			}
		}
	}
	out := make([]string, 0, n)
	seen := map[string]bool{}
	for _, it := range items {
		it = clip(strings.TrimSpace(it), 200)
		if it == "" || seen[it] {
			continue
		}
		seen[it] = true
		out = append(out, it)
		if len(out) == n {
			break
		}
	}
	return out
}
