// Package agui adapts the agent loop to the AG-UI protocol (version 1.0) that chat platforms
// speak: platform messages to model messages, platform tools to model tools, and run events to
// AG-UI events (one run event yields zero or more AG-UI events). The wire format itself is
// internal/protocol/agui, imported here as wire.
package agui

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	wire "github.com/agentry-dev/agentry/internal/protocol/agui"
	"github.com/agentry-dev/agentry/runtime/agent"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/tools"
)

// ErrInvalidRequest is the 400 body's message for input the endpoint cannot run.
var ErrInvalidRequest = errors.New("Invalid request")

// InputError says why a request cannot run; it is answered with 400 {"error":"Invalid request"}.
type InputError struct{ Detail string }

func (e *InputError) Error() string { return ErrInvalidRequest.Error() + ": " + e.Detail }

func invalid(format string, args ...any) error {
	return &InputError{Detail: fmt.Sprintf(format, args...)}
}

// ConvertMessages turns AG-UI messages into model messages. User, assistant (with tool calls),
// tool, system and developer messages are all kept; activity and reasoning messages are UI
// artefacts, not conversation, and are skipped. A result that is empty or not an array is an
// InputError. Tool calls the client left unanswered get an error result, because models reject
// a conversation where a tool call has no result.
func ConvertMessages(raw json.RawMessage) ([]llm.Message, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, invalid("messages is required")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, invalid("messages must be an array")
	}
	out := make([]llm.Message, 0, len(list))
	for i, item := range list {
		var m wire.Message
		if err := json.Unmarshal(item, &m); err != nil {
			return nil, invalid("messages[%d] is not a message object", i)
		}
		switch m.Role {
		case "user", "system", "developer":
			text, err := contentText(m.Content, m.Role == "user")
			if err != nil {
				return nil, invalid("messages[%d].content %s", i, err)
			}
			out = append(out, llm.Message{ID: m.ID, Role: m.Role, Content: text})
		case "assistant":
			text, err := contentText(m.Content, false)
			if err != nil && len(m.Content) > 0 && string(m.Content) != "null" {
				return nil, invalid("messages[%d].content %s", i, err)
			}
			msg := llm.Message{ID: m.ID, Role: "assistant", Content: text}
			for j, tc := range m.ToolCalls {
				if tc.ID == "" || tc.Function.Name == "" {
					return nil, invalid("messages[%d].toolCalls[%d] needs an id and function.name", i, j)
				}
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
			}
			if msg.Content == "" && len(msg.ToolCalls) == 0 {
				continue // an empty assistant turn carries nothing for the model
			}
			out = append(out, msg)
		case "tool":
			if m.ToolCallID == "" {
				return nil, invalid("messages[%d].toolCallId is required for a tool message", i)
			}
			text, err := contentText(m.Content, true)
			if err != nil {
				return nil, invalid("messages[%d].content %s", i, err)
			}
			if m.Error != "" {
				b, _ := json.Marshal(map[string]string{"error": m.Error})
				text = string(b)
			}
			out = append(out, llm.Message{ID: m.ID, Role: "tool", Content: text, ToolCallID: m.ToolCallID})
		case "activity", "reasoning":
			continue
		case "":
			return nil, invalid("messages[%d].role is required", i)
		default:
			return nil, invalid("messages[%d].role %q is not supported", i, m.Role)
		}
	}
	out = agent.RepairHistory(out)
	if len(out) == 0 {
		return nil, invalid("messages convert to an empty conversation")
	}
	return out, nil
}

// contentText flattens string or content-part content. Non-text parts (images, audio, files)
// are named in the text so the model knows something was attached.
func contentText(raw json.RawMessage, allowParts bool) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	if !allowParts {
		return "", errors.New("must be a string")
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		MimeType string `json:"mimeType"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("must be a string or an array of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
			continue
		}
		kind := p.Type
		if p.MimeType != "" {
			kind += " " + p.MimeType
		}
		fmt.Fprintf(&b, "[%s attachment]", kind)
	}
	return b.String(), nil
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ConvertTools turns the request's tools (frontend tools the client executes) into model tool
// definitions. Tools that are not an array mean no tools, as the specification says.
func ConvertTools(raw json.RawMessage) ([]tools.Definition, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, nil
	}
	out := make([]tools.Definition, 0, len(list))
	for i, item := range list {
		var t wire.Tool
		if err := json.Unmarshal(item, &t); err != nil {
			return nil, invalid("tools[%d] is not a tool object", i)
		}
		if !toolName.MatchString(t.Name) {
			return nil, invalid("tools[%d].name %q must match %s", i, t.Name, toolName)
		}
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		} else {
			var obj map[string]any
			if json.Unmarshal(params, &obj) != nil {
				return nil, invalid("tools[%d].parameters must be a JSON Schema object", i)
			}
		}
		out = append(out, tools.Definition{Name: t.Name, Description: t.Description, Parameters: params})
	}
	return out, nil
}
