/**
 * The live part of an agent's answer: what the relayed AG-UI events have built so far, per
 * AG-UI message, until the stored message of that answer arrives and replaces it. Tool-call
 * arguments are only exposed as parsed once the call ended (TOOL_CALL_END or a result):
 * arguments stream in pieces, and half a JSON object is not an argument list.
 *
 * Reasoning (REASONING_* events) streams before the answer it leads to, as a message of its own
 * id: it shows alone ("Thinking…") until that answer's text or tool call starts, then moves onto
 * the answer, as the service stores it (data.reasoning of the assistant message).
 */

export interface StreamToolCall {
  id: string;
  name: string;
  /** The raw argument text received so far. */
  argsText: string;
  /** Set once the call ended and its arguments parsed as JSON. */
  args?: unknown;
  ended: boolean;
  displayName?: string;
  executionText?: string;
  frontend: boolean;
  result?: string;
}

/** Reasoning received live; times are epoch milliseconds (the events' timestamps). */
export interface StreamReasoning {
  text: string;
  startedAt: number;
  /** Set once the reasoning ended (REASONING_END, or its answer started). */
  endedAt?: number;
}

export interface StreamMessage {
  messageId: string;
  runId: string;
  text: string;
  toolCalls: StreamToolCall[];
  ended: boolean;
  /** The reasoning before this answer; on a reasoning message alone, the reasoning itself. */
  reasoning?: StreamReasoning;
}

export interface AgentStreamState {
  /** AG-UI message ids in arrival order. */
  order: string[];
  messages: Readonly<Record<string, StreamMessage>>;
  /** The run in progress (undefined when none). */
  running?: { runId: string; agentId: string } | undefined;
  error?: { runId: string; code: string; message: string } | undefined;
  /** The last text message id, for chunks that omit it. */
  lastMessageId?: string;
  /** Messages whose stored copy arrived: a late or replayed event for one never revives it. */
  stored?: ReadonlySet<string>;
  /** The reasoning message still waiting for the answer it leads to. */
  thinking?: string | undefined;
}

/** An AG-UI event as relayed in an agent frame (the fields the list uses). */
export interface AgentUIEvent {
  type: string;
  /** Epoch milliseconds, when the agent stamps its events (Agentry's runtime does). */
  timestamp?: number;
  messageId?: string;
  delta?: string;
  toolCallId?: string;
  toolCallName?: string;
  parentMessageId?: string;
  displayName?: string;
  executionText?: string;
  frontend?: boolean;
  content?: string;
  message?: string;
  code?: string;
}

export type AgentStreamAction =
  /** at: when the event arrived (epoch ms), for events the agent did not stamp. */
  | { type: "event"; runId: string; agentId: string; event: AgentUIEvent; at?: number }
  /** A stored agentic message arrived: drop the live copy of that AG-UI message. */
  | { type: "stored"; messageId: string }
  | { type: "clear" };

export const emptyStream: AgentStreamState = { order: [], messages: {} };

function withMessage(s: AgentStreamState, id: string, runId: string, f: (m: StreamMessage) => StreamMessage): AgentStreamState {
  const old = s.messages[id] ?? { messageId: id, runId, text: "", toolCalls: [], ended: false };
  return {
    ...s,
    order: s.messages[id] ? s.order : [...s.order, id],
    messages: { ...s.messages, [id]: f(old) },
  };
}

function findCall(s: AgentStreamState, callId: string): string | undefined {
  return s.order.find((id) => s.messages[id]?.toolCalls.some((c) => c.id === callId));
}

function updateCall(s: AgentStreamState, callId: string, f: (c: StreamToolCall) => StreamToolCall): AgentStreamState {
  const id = findCall(s, callId);
  if (id === undefined) return s;
  return withMessage(s, id, "", (m) => ({ ...m, toolCalls: m.toolCalls.map((c) => (c.id === callId ? f(c) : c)) }));
}

function endCall(c: StreamToolCall): StreamToolCall {
  if (c.ended) return c;
  let args: unknown;
  try {
    args = c.argsText.trim() === "" ? {} : JSON.parse(c.argsText);
  } catch {
    args = undefined; // malformed arguments stay unparsed; the stored message decides
  }
  return args === undefined ? { ...c, ended: true } : { ...c, ended: true, args };
}

/** Removes message id from the live state (it moved or ended without a stored copy). */
function without(s: AgentStreamState, id: string): AgentStreamState {
  if (!s.messages[id]) return s;
  const messages = { ...s.messages };
  delete messages[id];
  return { ...s, order: s.order.filter((x) => x !== id), messages };
}

/** Moves the waiting reasoning of the run onto the answer it led to, host (which starts now). */
function settleThinking(s: AgentStreamState, host: string, runId: string, at: number): AgentStreamState {
  const id = s.thinking;
  const r = id !== undefined && id !== host ? s.messages[id] : undefined;
  if (!r?.reasoning || r.runId !== runId) return s;
  const reasoning: StreamReasoning = { ...r.reasoning, endedAt: r.reasoning.endedAt ?? at };
  const moved = without({ ...s, thinking: undefined }, id!);
  return withMessage(moved, host, runId, (m) => ({ ...m, reasoning }));
}

/** The waiting reasoning message of the run, or none. */
function reasoningOf(s: AgentStreamState, id: string | undefined): StreamMessage | undefined {
  const m = s.messages[id ?? s.thinking ?? ""];
  return m?.reasoning && m.text === "" && m.toolCalls.length === 0 ? m : undefined;
}

export function agentStreamReducer(s: AgentStreamState, a: AgentStreamAction): AgentStreamState {
  if (a.type === "clear") return emptyStream;
  if (a.type === "stored") {
    const stored = new Set(s.stored).add(a.messageId);
    if (!s.messages[a.messageId]) return { ...s, stored };
    const messages = { ...s.messages };
    delete messages[a.messageId];
    return { ...s, order: s.order.filter((id) => id !== a.messageId), messages, stored };
  }
  const { event: ev, runId, agentId } = a;
  const at = typeof ev.timestamp === "number" ? ev.timestamp : (a.at ?? Date.now());
  const about = ev.messageId ?? ev.parentMessageId ?? (ev.toolCallId !== undefined ? `tool-${ev.toolCallId}` : undefined);
  if (about !== undefined && s.stored?.has(about)) return s;
  switch (ev.type) {
    case "RUN_STARTED": {
      // A call starts: what is still live of this run belongs to a call that will never be
      // stored (a replica taking the run over asked the agent again) or is streamed again from
      // its start (a replay), so it goes; stored calls left the live state already.
      const order = s.order.filter((id) => s.messages[id]?.runId !== runId);
      if (order.length === s.order.length) return { ...s, running: { runId, agentId }, error: undefined };
      const messages = Object.fromEntries(order.map((id) => [id, s.messages[id]!]));
      const thinking = s.thinking !== undefined && messages[s.thinking] ? s.thinking : undefined;
      return { ...s, order, messages, thinking, running: { runId, agentId }, error: undefined };
    }
    case "RUN_FINISHED":
    case "RUN_ERROR": {
      // Reasoning no answer followed is stored on the call's last answer (already arrived: the
      // service sends RUN_FINISHED after storing), so its live copy goes.
      const done = s.thinking !== undefined ? without({ ...s, thinking: undefined }, s.thinking) : s;
      if (ev.type === "RUN_ERROR") return { ...done, running: undefined, error: { runId, code: ev.code ?? "", message: ev.message ?? "" } };
      return done.running ? { ...done, running: undefined } : done;
    }
    case "REASONING_START":
    case "REASONING_MESSAGE_START":
    case "REASONING_MESSAGE_CHUNK": {
      const id = ev.messageId ?? s.thinking;
      if (!id) return s;
      const open = reasoningOf(s, id);
      if (open) {
        // A START of a span already streaming: replayed from its first event (see
        // TEXT_MESSAGE_START), so its text is built anew; a CHUNK adds to it.
        if (ev.type === "REASONING_MESSAGE_CHUNK") return ev.delta ? withMessage(s, id, runId, (m) => ({ ...m, reasoning: { ...m.reasoning!, text: m.reasoning!.text + ev.delta } })) : s;
        return ev.type === "REASONING_MESSAGE_START" ? withMessage(s, id, runId, (m) => ({ ...m, reasoning: { text: "", startedAt: m.reasoning!.startedAt } })) : s;
      }
      if (s.messages[id]) return s; // an answer of this id already shows
      const next = withMessage(s, id, runId, (m) => ({ ...m, reasoning: { text: ev.delta ?? "", startedAt: at } }));
      return { ...next, thinking: id };
    }
    case "REASONING_MESSAGE_CONTENT": {
      const id = ev.messageId ?? s.thinking;
      if (!id || !ev.delta || !reasoningOf(s, id)) return s;
      return withMessage(s, id, runId, (m) => ({ ...m, reasoning: { ...m.reasoning!, text: m.reasoning!.text + ev.delta } }));
    }
    case "REASONING_MESSAGE_END":
    case "REASONING_END": {
      const id = ev.messageId ?? s.thinking;
      const m = reasoningOf(s, id);
      if (!m || m.reasoning!.endedAt !== undefined) return s;
      return withMessage(s, m.messageId, runId, (x) => ({ ...x, reasoning: { ...x.reasoning!, endedAt: at } }));
    }
    case "TEXT_MESSAGE_START":
      // A start for a message already streaming is the stream replayed from its first event
      // (another chat replica took the run over): the message is built anew, not twice.
      return ev.messageId
        ? { ...withMessage(settleThinking(s, ev.messageId, runId, at), ev.messageId, runId, (m) => (m.text === "" ? m : { ...m, text: "", ended: false })), lastMessageId: ev.messageId }
        : s;
    case "TEXT_MESSAGE_CONTENT":
    case "TEXT_MESSAGE_CHUNK": {
      const id = ev.messageId ?? s.lastMessageId;
      if (!id || !ev.delta) return s;
      return { ...withMessage(settleThinking(s, id, runId, at), id, runId, (m) => ({ ...m, text: m.text + ev.delta })), lastMessageId: id };
    }
    case "TEXT_MESSAGE_END":
      return ev.messageId && s.messages[ev.messageId] ? withMessage(s, ev.messageId, runId, (m) => ({ ...m, ended: true })) : s;
    case "TOOL_CALL_START":
    case "TOOL_CALL_CHUNK": {
      const callId = ev.toolCallId;
      if (!callId) return s;
      if (findCall(s, callId) !== undefined) {
        if (ev.type === "TOOL_CALL_START") {
          // Replayed from its start (see TEXT_MESSAGE_START): the call is built anew.
          return updateCall(s, callId, (c) => ({ ...c, argsText: "", ended: false, args: undefined, result: undefined }));
        }
        return ev.delta ? updateCall(s, callId, (c) => ({ ...c, argsText: c.argsText + ev.delta })) : s;
      }
      const parent = ev.parentMessageId ?? `tool-${callId}`;
      const settled = settleThinking(s, parent, runId, at);
      const call: StreamToolCall = {
        id: callId, name: ev.toolCallName ?? "", argsText: ev.delta ?? "", ended: false, frontend: ev.frontend === true,
        ...(ev.displayName !== undefined && { displayName: ev.displayName }),
        ...(ev.executionText !== undefined && { executionText: ev.executionText }),
      };
      return withMessage(settled, parent, runId, (m) => ({ ...m, toolCalls: [...m.toolCalls, call] }));
    }
    case "TOOL_CALL_ARGS":
      return ev.toolCallId && ev.delta ? updateCall(s, ev.toolCallId, (c) => (c.ended ? c : { ...c, argsText: c.argsText + ev.delta })) : s;
    case "TOOL_CALL_END":
      return ev.toolCallId ? updateCall(s, ev.toolCallId, endCall) : s;
    case "TOOL_CALL_RESULT":
      return ev.toolCallId ? updateCall(s, ev.toolCallId, (c) => ({ ...endCall(c), result: ev.content ?? "" })) : s;
  }
  return s;
}

/** The streaming messages in arrival order. */
export function streamMessages(s: AgentStreamState): StreamMessage[] {
  return s.order.map((id) => s.messages[id]!).filter(Boolean);
}
