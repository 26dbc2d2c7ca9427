package agent

import "github.com/agentry-dev/agentry/runtime/llm"

// RepairHistory makes a conversation acceptable to OpenAI-compatible models, which reject a
// tool result without its call and a tool call without its result: leading tool results (their
// call fell outside a recall window) are dropped, and calls nobody answered (a frontend action
// the user ignored) get an error result.
func RepairHistory(in []llm.Message) []llm.Message {
	start := 0
	for start < len(in) && in[start].Role == "tool" {
		start++
	}
	in = in[start:]
	out := make([]llm.Message, 0, len(in))
	for i := 0; i < len(in); i++ {
		out = append(out, in[i])
		if in[i].Role != "assistant" || len(in[i].ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		j := i + 1
		for ; j < len(in) && in[j].Role == "tool"; j++ {
			answered[in[j].ToolCallID] = true
			out = append(out, in[j])
		}
		for _, tc := range in[i].ToolCalls {
			if !answered[tc.ID] {
				out = append(out, llm.Message{ID: "unanswered_" + tc.ID, Role: "tool", ToolCallID: tc.ID,
					Content: `{"error":"the client sent no result for this tool call"}`})
			}
		}
		i = j - 1
	}
	return out
}
