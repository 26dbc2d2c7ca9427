package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/internal/protocol/agui"
)

// mastraMessage is the specification's generate input: role and content only.
type mastraMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// callMastra posts {messages} to a /generate URL and relays the JSON answer as one AG-UI
// text message, so clients handle both providers alike. Tool calls and results are the
// agent's own business here: only text travels.
func (b *Bridge) callMastra(ctx context.Context, p *Plan, callID, url string, headers map[string]string, msgs []model.Message) (*output, *runError) {
	var in []mastraMessage
	for _, m := range toAGUI(p.cfg.AgentID, p.group != "", msgs) {
		var text string
		if (m.Role == "user" || m.Role == "assistant") && json.Unmarshal(m.Content, &text) == nil && text != "" {
			in = append(in, mastraMessage{Role: m.Role, Content: text})
		}
	}
	if len(in) == 0 && p.resume == nil {
		return nil, fail(model.RunErrProtocol, "the conversation has no message it can send", nil)
	}
	body, _ := json.Marshal(map[string]any{"messages": in})
	if p.resume != nil {
		// A decided approval goes to Mastra's approve-tool-call or decline-tool-call, beside
		// the generate URL, with the suspended run's id and the call.
		var rerr *runError
		if url, body, rerr = mastraDecision(url, p.resume); rerr != nil {
			return nil, rerr
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// generate answers only when done, so the idle limit bounds the whole call here.
	idle := time.AfterFunc(b.o.IdleTimeout, func() { cancel(errIdle) })
	defer idle.Stop()
	now := func() int64 { return time.Now().UnixMilli() }
	b.publish(p, model.MustJSON(agui.Event{Type: agui.RunStarted, ThreadID: p.run.ConversationID, RunID: p.run.RunID, Timestamp: now()}))

	res, rerr := b.post(ctx, p, url, headers, body, "application/json")
	if rerr != nil {
		return nil, rerr
	}
	defer res.Body.Close()
	if !hasMediaType(res, "application/json") {
		return nil, fail(model.RunErrContentType, fmt.Sprintf("it answered %s instead of JSON (application/json); check the Deployment URL", contentTypeOf(res)), nil)
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxOutput+1))
	if err != nil {
		return nil, b.transportFailure(ctx, err)
	}
	if len(raw) > maxOutput {
		return nil, fail(model.RunErrProtocol, fmt.Sprintf("its answer is larger than %d MiB", maxOutput>>20), nil)
	}
	text, ok := generateText(raw)
	if !ok {
		return nil, fail(model.RunErrProtocol, "its answer is not JSON", nil)
	}
	out := newOutput()
	out.interrupts = suspendedApprovals(raw)
	out.usage = generateUsage(raw)
	if len(out.interrupts) > 0 && strings.HasPrefix(strings.TrimSpace(text), "{") {
		text = "" // the whole answer echoed as JSON: nothing to say until someone decides
	}
	msgID := "msg_" + callID // the same when another replica calls again: built anew, not twice
	if thought := generateReasoning(raw); thought != "" {
		// Relayed as AG-UI reasoning, as an AG-UI agent's would be; generate says nothing of
		// how long it took, so the stored reasoning has no duration.
		rsnID := "rsn_" + callID
		out.thought.untimed = true
		out.apply(&agui.Event{Type: agui.ReasoningMessageContent, MessageID: rsnID, Delta: thought})
		for _, ev := range []agui.Event{
			{Type: agui.ReasoningStart, MessageID: rsnID},
			{Type: agui.ReasoningMessageStart, MessageID: rsnID, Role: "reasoning"},
			{Type: agui.ReasoningMessageContent, MessageID: rsnID, Delta: thought},
			{Type: agui.ReasoningMessageEnd, MessageID: rsnID},
			{Type: agui.ReasoningEnd, MessageID: rsnID},
		} {
			ev.Timestamp = now()
			b.publish(p, model.MustJSON(ev))
		}
	}
	out.apply(&agui.Event{Type: agui.TextMessageContent, MessageID: msgID, Delta: text})
	out.finished = true
	if text != "" {
		for _, ev := range []agui.Event{
			{Type: agui.TextMessageStart, MessageID: msgID, Role: "assistant"},
			{Type: agui.TextMessageContent, MessageID: msgID, Delta: text},
			{Type: agui.TextMessageEnd, MessageID: msgID},
		} {
			ev.Timestamp = now()
			b.publish(p, model.MustJSON(ev))
		}
	}
	// Published once stored (see output.finish).
	out.finish = model.MustJSON(agui.Event{Type: agui.RunFinished, ThreadID: p.run.ConversationID, RunID: p.run.RunID, Timestamp: now()})
	return out, nil
}

// mastraDecision is the request answering a suspended generate run: the interrupt id is the
// run id and the tool call id, joined by '#'.
func mastraDecision(generateURL string, d *decision) (string, []byte, *runError) {
	base, ok := strings.CutSuffix(generateURL, "/generate")
	run, toolCall, okID := strings.Cut(d.interruptID, "#")
	if !ok || !okID {
		return "", nil, fail(model.RunErrProtocol, "its Deployment URL does not end in /generate, so the approval cannot be sent to it", nil)
	}
	route := "/decline-tool-call"
	if d.approved {
		route = "/approve-tool-call"
	}
	body, _ := json.Marshal(map[string]string{"runId": run, "toolCallId": toolCall, "reason": d.reason})
	return base + route, body, nil
}

// suspendedApprovals reads a generate answer that stopped for approval (finishReason
// "suspended" with pendingApprovals) as interrupts.
func suspendedApprovals(raw []byte) []agui.Interrupt {
	var res struct {
		FinishReason     string `json:"finishReason"`
		RunID            string `json:"runId"`
		PendingApprovals []struct {
			ToolCallID string          `json:"toolCallId"`
			ToolName   string          `json:"toolName"`
			Args       json.RawMessage `json:"args"`
			ExpiresAt  string          `json:"expiresAt"`
		} `json:"pendingApprovals"`
	}
	if json.Unmarshal(raw, &res) != nil || res.FinishReason != "suspended" || res.RunID == "" {
		return nil
	}
	var out []agui.Interrupt
	for _, a := range res.PendingApprovals {
		out = append(out, agui.Interrupt{ID: res.RunID + "#" + a.ToolCallID, Reason: agui.ReasonToolApproval, ToolCallID: a.ToolCallID, ExpiresAt: a.ExpiresAt,
			Metadata: agui.InterruptMetadata{ToolName: a.ToolName, Arguments: a.Args}})
	}
	return out
}

// generateReasoning is a generate answer's reasoning: Mastra's reasoningText, or its
// reasoning when that is a string (older results); "" for none.
func generateReasoning(raw []byte) string {
	var r struct {
		ReasoningText json.RawMessage `json:"reasoningText"`
		Reasoning     json.RawMessage `json:"reasoning"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return ""
	}
	for _, f := range []json.RawMessage{r.ReasoningText, r.Reasoning} {
		var s string
		if json.Unmarshal(f, &s) == nil && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// generateText is the reply of a generate answer: its "text" field (Mastra's result), a
// JSON string, or else the JSON itself, indented (a deployment wrapper may answer any JSON).
func generateText(raw []byte) (string, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch t := v.(type) {
	case string:
		return t, true
	case map[string]any:
		if s, ok := t["text"].(string); ok && strings.TrimSpace(s) != "" {
			return s, true
		}
	}
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return string(raw), true
	}
	return buf.String(), true
}
