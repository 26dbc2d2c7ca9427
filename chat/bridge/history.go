package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
)

// aguiMessage is an AG-UI message of RunAgentInput.
type aguiMessage struct {
	ID         string         `json:"id"`
	Role       string         `json:"role"`
	Content    string         `json:"content,omitempty"`
	Name       string         `json:"name,omitempty"`
	ToolCalls  []aguiToolCall `json:"toolCalls,omitempty"`
	ToolCallID string         `json:"toolCallId,omitempty"`
	Error      string         `json:"error,omitempty"`
}

type aguiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type aguiTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type runInput struct {
	ThreadID       string         `json:"threadId"`
	RunID          string         `json:"runId"`
	ParentRunID    string         `json:"parentRunId,omitempty"`
	State          map[string]any `json:"state"`
	Messages       []aguiMessage  `json:"messages"`
	Tools          []aguiTool     `json:"tools"`
	Context        []any          `json:"context"`
	ForwardedProps map[string]any `json:"forwardedProps"`
	Resume         []resumeEntry  `json:"resume,omitempty"`
}

// history reads the conversation's recent messages as the agent sees them.
func (b *Bridge) history(ctx context.Context, p *Plan) ([]model.Message, error) {
	q := store.MessageQuery{Limit: b.o.History, HideReplies: true}
	if p.group != "" {
		q.GUID = p.group
	} else {
		q.UID = p.sender
	}
	return b.o.Store.ListMessages(ctx, p.cfg.AgentID, q)
}

// toAGUI turns the conversation into AG-UI messages: people's text as user messages (named
// by uid in a group, so the agent can tell speakers apart), this agent's replies as assistant
// messages with their tool calls, tool results as tool messages. Deleted messages, membership
// actions, failed runs and other agents' internals are left out.
func toAGUI(agentID string, group bool, msgs []model.Message) []aguiMessage {
	out := make([]aguiMessage, 0, len(msgs))
	// A call without its result (one waiting for approval) is left out: a model must never be
	// shown a call nobody answered.
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Category == model.CategoryAgentic && m.Type == model.TypeToolResult && m.DeletedAt == nil {
			var d model.ToolResultData
			if json.Unmarshal(m.Data, &d) == nil {
				answered[d.ToolCallID] = true
			}
		}
	}
	for _, m := range msgs {
		if m.DeletedAt != nil {
			continue
		}
		id := fmt.Sprintf("chat-%d", m.ID)
		switch {
		case m.Category == model.CategoryMessage && m.Sender == agentID:
			out = append(out, aguiMessage{ID: id, Role: "assistant", Content: m.Text})
		case m.Category == model.CategoryMessage:
			text := m.Text
			if m.Type != model.TypeText {
				name := m.Type
				if m.Attachment != nil {
					name += ": " + m.Attachment.Name
				}
				text = "[" + name + "]"
			}
			msg := aguiMessage{ID: id, Role: "user", Content: text}
			if group {
				msg.Name, msg.Content = m.Sender, m.Sender+": "+text
			}
			out = append(out, msg)
		case m.Category == model.CategoryAgentic && m.Type == model.TypeAssistant && m.Sender == agentID:
			var d model.AssistantData
			_ = json.Unmarshal(m.Data, &d)
			msg := aguiMessage{ID: id, Role: "assistant", Content: m.Text}
			for _, tc := range d.ToolCalls {
				if !answered[tc.ID] {
					continue
				}
				c := aguiToolCall{ID: tc.ID, Type: "function"}
				c.Function.Name, c.Function.Arguments = tc.Name, tc.Arguments
				msg.ToolCalls = append(msg.ToolCalls, c)
			}
			if msg.Content == "" && len(msg.ToolCalls) == 0 {
				continue
			}
			out = append(out, msg)
		case m.Category == model.CategoryAgentic && m.Type == model.TypeToolResult:
			var d model.ToolResultData
			if json.Unmarshal(m.Data, &d) != nil || d.AgentID != agentID {
				continue
			}
			msg := aguiMessage{ID: id, Role: "tool", ToolCallID: d.ToolCallID, Content: d.Result}
			if d.Error != "" {
				msg.Error = d.Error
				if msg.Content == "" {
					msg.Content = string(model.MustJSON(map[string]string{"error": d.Error}))
				}
			}
			out = append(out, msg)
		case m.Category == model.CategoryAgentic && (m.Type == model.TypeAgentError || m.Type == model.TypeApprovalRequest || m.Type == model.TypeApprovalDecision):
			// A failed run and the approval notes are the platform's notes to people, not part
			// of the dialogue (the agent hears a decision through the run it resumes).
		case m.Category == model.CategoryAgentic && m.Text != "":
			// Another agent's reply, in a group: what it said is context like a person's.
			out = append(out, aguiMessage{ID: id, Role: "user", Name: m.Sender, Content: m.Sender + ": " + m.Text})
		}
	}
	return out
}

func toolsOf(actions []model.FrontendAction) []aguiTool {
	out := make([]aguiTool, 0, len(actions))
	for _, a := range actions {
		out = append(out, aguiTool{Name: a.Name, Description: a.Description, Parameters: a.Parameters})
	}
	return out
}
