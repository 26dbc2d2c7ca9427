/**
 * An agent run's steps as one block: the tool calls of its assistant messages and their
 * results (including a frontend action's result, which its executor's client stores under the
 * user's name) instead of a bubble per step. Pure, for the item builder and its tests.
 */
import { Chat } from "@agentry/chat-sdk";
import { humanize } from "./conversation";

export interface RunStep {
  id: string;
  /** What the step did, in words (the tool's display name). */
  label: string;
  state: "called" | "done" | "error";
  error?: string | undefined;
  /** What the agent thought before this call (on the first call of its message), if anything. */
  reasoning?: Chat.AgentReasoning | undefined;
}

/** A message that is only a step of a run: a tool result, or an assistant message that only
 * calls tools. */
export function isStep(m: Chat.BaseMessage): m is Chat.AgenticMessage {
  if (!(m instanceof Chat.AgenticMessage) || m.getDeletedAt()) return false;
  if (m.getType() === "tool_result") return true;
  return m.getType() === "assistant" && m.getText().trim() === "" && m.getToolCalls().length > 0;
}

/** Whether an assistant message answers in words (its tool calls go to the steps block). */
export function isAnswer(m: Chat.BaseMessage): m is Chat.AgenticMessage {
  return m instanceof Chat.AgenticMessage && m.getType() === "assistant" && !m.getDeletedAt() && m.getText().trim() !== "";
}

/** The steps of some messages, in call order; a result marks its call done (or failed). */
export function stepsOf(messages: readonly Chat.AgenticMessage[], carried: readonly Chat.ToolCall[] = []): RunStep[] {
  const steps: RunStep[] = [];
  const byId = new Map<string, RunStep>();
  const call = (c: Chat.ToolCall, reasoning?: Chat.AgentReasoning) => {
    if (byId.has(c.id)) return;
    const s: RunStep = { id: c.id, label: c.displayName ?? humanize(c.name), state: "called", ...(reasoning && { reasoning }) };
    byId.set(c.id, s);
    steps.push(s);
  };
  carried.forEach((c) => call(c));
  for (const m of messages) {
    // A step's message keeps its reasoning with its first call, so the block can show it.
    if (m.getType() === "assistant") m.getToolCalls().forEach((c, i) => call(c, i === 0 ? m.getReasoning() : undefined));
    const r = m.getToolResult();
    if (!r) continue;
    let s = byId.get(r.toolCallId);
    if (!s) {
      s = { id: r.toolCallId || `r-${m.getId()}`, label: humanize(r.name), state: "called" };
      byId.set(s.id, s);
      steps.push(s);
    }
    s.state = r.error ? "error" : "done";
    s.error = r.error;
  }
  return steps;
}
