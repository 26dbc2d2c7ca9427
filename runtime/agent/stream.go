package agent

import (
	"github.com/agentry-dev/agentry/runtime/llm"
)

// streamHandler turns model stream callbacks into run events, keeping the reasoning, the text
// message and tool calls properly opened and closed: reasoning ends before text or a tool call
// starts, text ends before a tool call starts, and a tool call ends before the next one starts.
type streamHandler struct {
	sink     Sink
	step     int
	msgID    string
	frontend map[string]bool

	reasoningOpen bool
	// answered is set once text or a tool call began: reasoning after that (models practically
	// never send it) stays in the result only, so no reasoning message opens after the answer.
	answered bool
	textOpen bool
	open     int // index of the open tool call, -1 when none
	calls    map[int]llm.ToolCall
	ended    map[int]bool
	order    []int
}

func (h *streamHandler) emit(e Event) error {
	e.Step, e.MessageID = h.step, h.msgID
	return h.sink(e)
}

// OnReasoning implements llm.ReasoningHandler.
func (h *streamHandler) OnReasoning(delta string) error {
	if h.answered || delta == "" {
		return nil
	}
	if !h.reasoningOpen {
		h.reasoningOpen = true
		if err := h.emit(Event{Type: EventReasoningStart}); err != nil {
			return err
		}
	}
	return h.emit(Event{Type: EventReasoningDelta, Delta: delta})
}

// endReasoning closes the reasoning once the answer begins.
func (h *streamHandler) endReasoning() error {
	h.answered = true
	if !h.reasoningOpen {
		return nil
	}
	h.reasoningOpen = false
	return h.emit(Event{Type: EventReasoningEnd})
}

func (h *streamHandler) OnText(delta string) error {
	if err := h.endReasoning(); err != nil {
		return err
	}
	if h.calls != nil && h.open >= 0 {
		// Text after a tool call started belongs to no open message; keep it in the result
		// only (models practically never do this).
		return nil
	}
	if !h.textOpen {
		h.textOpen = true
		if err := h.emit(Event{Type: EventTextStart}); err != nil {
			return err
		}
	}
	return h.emit(Event{Type: EventTextDelta, Delta: delta})
}

func (h *streamHandler) endText() error {
	if !h.textOpen {
		return nil
	}
	h.textOpen = false
	return h.emit(Event{Type: EventTextEnd})
}

func (h *streamHandler) OnToolCallStart(index int, id, name string) error {
	if err := h.endReasoning(); err != nil {
		return err
	}
	if err := h.endText(); err != nil {
		return err
	}
	if h.calls == nil {
		h.calls, h.ended, h.open = map[int]llm.ToolCall{}, map[int]bool{}, -1
	}
	if err := h.endCall(); err != nil {
		return err
	}
	h.calls[index] = llm.ToolCall{ID: id, Name: name}
	h.order = append(h.order, index)
	h.open = index
	return h.emit(Event{Type: EventToolCallStart, ToolCall: h.calls[index], Frontend: h.frontend[name]})
}

func (h *streamHandler) OnToolCallArgs(index int, delta string) error {
	tc, ok := h.calls[index]
	if !ok || h.ended[index] {
		return nil
	}
	tc.Arguments += delta
	h.calls[index] = tc
	return h.emit(Event{Type: EventToolCallArgs, ToolCall: tc, Delta: delta, Frontend: h.frontend[tc.Name]})
}

func (h *streamHandler) endCall() error {
	if h.open < 0 {
		return nil
	}
	i := h.open
	h.open = -1
	h.ended[i] = true
	tc := h.calls[i]
	return h.emit(Event{Type: EventToolCallEnd, ToolCall: tc, Frontend: h.frontend[tc.Name]})
}

// close ends whatever is still open once the model's answer is complete.
func (h *streamHandler) close() error {
	if err := h.endReasoning(); err != nil {
		return err
	}
	if err := h.endText(); err != nil {
		return err
	}
	if h.calls == nil {
		return nil
	}
	return h.endCall()
}
