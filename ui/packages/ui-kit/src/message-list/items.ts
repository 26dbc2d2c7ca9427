/**
 * What the list renders, in order: date separators, the "New messages" divider and the
 * messages, with whether each message starts a run of one sender (a run shows the sender's
 * name and avatar once). Pure, so the layout rules are unit-tested without a DOM.
 */
import type { Chat } from "@agentry/chat-sdk";
import { isAnswer, isStep, stepsOf, type RunStep } from "./agent/steps";

export type ListItem =
  | { kind: "date"; key: string; date: Date }
  | { kind: "unread"; key: string }
  | { kind: "message"; key: string; message: Chat.BaseMessage; firstOfRun: boolean; toolCallsInSteps?: boolean }
  /** An agent run's steps (tool calls and results) as one block; noReply: the run ended
   * without answering in words after them. */
  | { kind: "steps"; key: string; messages: Chat.AgenticMessage[]; steps: RunStep[]; agentId: string | undefined; noReply: boolean;
      /** The answer whose tool calls these steps ran: what a template draws for it (a card a
       * frontend action showed) comes after the steps that produced it. */
      answer?: Chat.BaseMessage };

export interface ItemOptions {
  hideDateSeparator: boolean;
  hideGroupActionMessages: boolean;
  /** The first unread message (startFromUnreadMessages): the divider goes before it. */
  firstUnreadId?: number | undefined;
  /** An agent run is under way in the conversation (its last steps may still be answered). */
  agentRunning?: boolean | undefined;
}

/** A run of one sender breaks after this much silence (seconds). */
const RUN_GAP = 5 * 60;

const dayKey = (d: Date) => `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;

export const isAction = (m: Chat.BaseMessage) => m.getCategory() === "action";

export function buildItems(messages: readonly Chat.BaseMessage[], o: ItemOptions): ListItem[] {
  const out: ListItem[] = [];
  let lastDay = "";
  let prev: Chat.BaseMessage | undefined;
  // The tool calls of the last answer in words: they show in the steps block that follows.
  let carried: { runId: string | undefined; calls: Chat.ToolCall[]; item: Extract<ListItem, { kind: "message" }> } | undefined;
  let steps: Extract<ListItem, { kind: "steps" }> | undefined;
  let stepsRun: string | undefined;
  const closeSteps = (next: Chat.BaseMessage | undefined) => {
    if (!steps) return;
    // Answered when the run's next message is the agent's text; the end of the list is
    // answered while the run goes on.
    // A run that stopped for approval has not finished: its answer comes after the decision.
    steps.noReply = next ? !isAnswer(next) && next.getType() !== "approval_request" : !o.agentRunning;
    const take = carried && carried.runId === stepsRun ? carried : undefined;
    if (take) {
      take.item.toolCallsInSteps = true;
      steps.answer = take.item.message;
    }
    steps.steps = stepsOf(steps.messages, take ? take.calls : []);
    carried = undefined;
    steps = undefined;
  };
  for (const m of messages) {
    if (o.hideGroupActionMessages && isAction(m)) continue;
    if (isStep(m)) {
      const run = m.getRunId();
      if (steps && run === stepsRun) {
        steps.messages.push(m);
        continue;
      }
      closeSteps(m);
      const day = dayKey(new Date(m.getSentAt() * 1000));
      if (day !== lastDay && !o.hideDateSeparator) out.push({ kind: "date", key: `date-${day}`, date: new Date(m.getSentAt() * 1000) });
      lastDay = day;
      if (o.firstUnreadId !== undefined && m.getId() === o.firstUnreadId) out.push({ kind: "unread", key: "unread" });
      steps = { kind: "steps", key: `s-${m.getId()}`, messages: [m], steps: [], agentId: m.getAgentId(), noReply: false };
      stepsRun = run;
      out.push(steps);
      prev = m;
      continue;
    }
    closeSteps(m);
    carried = undefined;
    const date = new Date(m.getSentAt() * 1000);
    const day = dayKey(date);
    const newDay = day !== lastDay;
    if (newDay && !o.hideDateSeparator) out.push({ kind: "date", key: `date-${day}`, date });
    lastDay = day;
    const unread = o.firstUnreadId !== undefined && m.getId() === o.firstUnreadId;
    if (unread) out.push({ kind: "unread", key: "unread" });
    const firstOfRun =
      newDay ||
      unread ||
      !prev ||
      isAction(prev) ||
      prev.getSender()?.getUid() !== m.getSender()?.getUid() ||
      m.getSentAt() - prev.getSentAt() > RUN_GAP;
    const item: Extract<ListItem, { kind: "message" }> = { kind: "message", key: `m-${m.getId()}`, message: m, firstOfRun };
    out.push(item);
    if (isAnswer(m) && m.getToolCalls().length) carried = { runId: m.getRunId(), calls: m.getToolCalls(), item };
    prev = m;
  }
  closeSteps(undefined);
  return out;
}
