// The frontend action registry's runner: a stored assistant message that awaits actions, seen
// live by the user it names as executor, runs each awaited call's handler once per page — also
// when the message is delivered twice, two lists show the conversation, or React runs effects
// twice — with the call's complete arguments, and posts the result (or the error) back.
import { Chat } from "@agentry/chat-sdk";
import type { AgentActionHandler } from "../props";

const claimed = new Set<string>();

/** Forgets which calls ran (tests only). */
export function resetActionRegistry(): void {
  claimed.clear();
}

function errorSentence(e: unknown): string {
  const m = e instanceof Error ? e.message : typeof e === "string" ? e : (e as { message?: unknown } | null)?.message;
  const s = typeof m === "string" && m.trim() ? m.trim() : "the action failed";
  return s.length > 2000 ? s.slice(0, 1997) + "…" : s;
}

/** The result as JSON the service accepts: a value that serialises (null and undefined say "done"). */
function jsonResult(v: unknown): unknown {
  if (v === undefined || v === null) return "done";
  const text = JSON.stringify(v); // throws on cycles and BigInt: reported as the call's error
  if (text === undefined) throw new Error("the action's result is not JSON");
  return JSON.parse(text) as unknown;
}

async function runCall(runId: string, callId: string, message: Chat.AgenticMessage, actions: Readonly<Record<string, AgentActionHandler>> | undefined): Promise<Chat.ActionResult> {
  const call = message.getToolCalls().find((c) => c.id === callId);
  const name = call?.name ?? "";
  const handler = call && actions && Object.prototype.hasOwnProperty.call(actions, name) ? actions[name] : undefined;
  if (!call || !handler) return { error: `no handler for action ${name || callId} in this app` };
  try {
    const args: unknown = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
    const value: unknown = await handler(args, { id: callId, name, message });
    return { result: jsonResult(value) };
  } catch (e) {
    return { error: errorSentence(e) };
  }
}

/**
 * Runs the awaited frontend actions of a live stored message when `me` is its executor, each
 * call at most once per page, one after another; resolves when every result was posted.
 * Messages from history must never be passed here.
 */
export async function runAwaitedActions(
  message: Chat.AgenticMessage,
  me: string,
  actions: Readonly<Record<string, AgentActionHandler>> | undefined,
  onError: (e: unknown) => void,
): Promise<void> {
  const runId = message.getRunId();
  if (message.getType() !== "assistant" || !runId || message.getExecutor() !== me) return;
  const mine = message.getAwaitingActions().filter((callId) => {
    const key = `${runId}\u0000${callId}`;
    if (claimed.has(key)) return false;
    claimed.add(key);
    return true;
  });
  for (const callId of mine) {
    const result = await runCall(runId, callId, message, actions);
    try {
      await Chat.sendActionResult(runId, callId, result);
    } catch (e) {
      // Another session of the user answered first: nothing to tell.
      if ((e as { code?: unknown } | null)?.code !== "ERR_ACTION_NOT_PENDING") onError(e);
    }
  }
}
