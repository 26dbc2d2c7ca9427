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
  const call = (c: Chat.ToolCall) => {
    if (byId.has(c.id)) return;
    const s: RunStep = { id: c.id, label: c.displayName ?? humanize(c.name), state: "called" };
    byId.set(c.id, s);
    steps.push(s);
  };
  carried.forEach(call);
  for (const m of messages) {
    if (m.getType() === "assistant") m.getToolCalls().forEach(call);
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
