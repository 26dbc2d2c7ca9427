package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// runInput is the RunAgentInput of one call: the conversation, the frontend actions as tools,
// and the empty state, context and forwarded props AG-UI servers expect to find.
func runInput(threadID, runID string, msgs []agui.Message, tools []agui.Tool) agui.RunAgentInput {
	return agui.RunAgentInput{ThreadID: threadID, RunID: runID, State: json.RawMessage("{}"), Messages: agui.Raw(msgs),
		Tools: agui.Raw(tools), Context: json.RawMessage("[]"), ForwardedProps: json.RawMessage("{}")}
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
func toAGUI(agentID string, group bool, msgs []model.Message) []agui.Message {
	out := make([]agui.Message, 0, len(msgs))
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
			out = append(out, agui.Message{ID: id, Role: "assistant", Content: agui.Text(m.Text)})
		case m.Category == model.CategoryMessage:
			text := m.Text
			if m.Type != model.TypeText {
				name := m.Type
				if m.Attachment != nil {
					name += ": " + m.Attachment.Name
				}
				text = "[" + name + "]"
			}
			msg := agui.Message{ID: id, Role: "user", Content: agui.Text(text)}
			if group {
				msg.Name, msg.Content = m.Sender, agui.Text(m.Sender+": "+text)
			}
			out = append(out, msg)
		case m.Category == model.CategoryAgentic && m.Type == model.TypeAssistant && m.Sender == agentID:
			var d model.AssistantData
			_ = json.Unmarshal(m.Data, &d)
			msg := agui.Message{ID: id, Role: "assistant", Content: agui.Text(m.Text)}
			for _, tc := range d.ToolCalls {
				if answered[tc.ID] {
					msg.ToolCalls = append(msg.ToolCalls, agui.ToolCall{ID: tc.ID, Type: "function", Function: agui.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
				}
			}
			if len(msg.Content) == 0 && len(msg.ToolCalls) == 0 {
				continue
			}
			out = append(out, msg)
		case m.Category == model.CategoryAgentic && m.Type == model.TypeToolResult:
			var d model.ToolResultData
			if json.Unmarshal(m.Data, &d) != nil || d.AgentID != agentID {
				continue
			}
			msg := agui.Message{ID: id, Role: "tool", ToolCallID: d.ToolCallID, Content: agui.Text(d.Result)}
			if d.Error != "" {
				msg.Error = d.Error
				if d.Result == "" {
					msg.Content = agui.Text(string(model.MustJSON(map[string]string{"error": d.Error})))
				}
			}
			out = append(out, msg)
		case m.Category == model.CategoryAgentic && (m.Type == model.TypeAgentError || m.Type == model.TypeApprovalRequest || m.Type == model.TypeApprovalDecision):
			// A failed run and the approval notes are the platform's notes to people, not part
			// of the dialogue (the agent hears a decision through the run it resumes).
		case m.Category == model.CategoryAgentic && m.Text != "":
			// Another agent's reply, in a group: what it said is context like a person's.
			out = append(out, agui.Message{ID: id, Role: "user", Name: m.Sender, Content: agui.Text(m.Sender + ": " + m.Text)})
		}
	}
	return out
}

func toolsOf(actions []model.FrontendAction) []agui.Tool {
	out := make([]agui.Tool, 0, len(actions))
	for _, a := range actions {
		out = append(out, agui.Tool{Name: a.Name, Description: a.Description, Parameters: a.Parameters})
	}
	return out
}
