import type { ReceiverType } from "../constants";
import { isObject, type JSONObject, type JSONValue } from "../wire";
import type { Approval } from "./agent";
import { toApproval } from "./approval";
import { BaseMessage } from "./message";

/** One tool call of an assistant message. Frontend calls are actions the client executes. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text, complete. */
  readonly arguments: string;
  readonly frontend: boolean;
  readonly displayName?: string;
  readonly executionText?: string;
}

/** The result of a tool call (tool_result messages). */
export interface ToolResult {
  readonly toolCallId: string;
  readonly name: string;
  /** The result as the tool or the client returned it (JSON text or a plain string). */
  readonly result?: string;
  /** Set when the call failed or was not answered in time. */
  readonly error?: string;
  readonly frontend: boolean;
}

/**
 * What a reasoning model thought before an answer (data.reasoning of an assistant message):
 * kept beside the answer's text, never in it, for clients to show folded.
 */
export interface AgentReasoning {
  readonly text: string;
  /** How long the agent reasoned, as the chat service measured it; absent when unknown. */
  readonly durationMs?: number;
}

const str = (v: JSONValue | undefined): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * An agent run's stored output (category "agentic"): type "assistant" (the agent's text and
 * its tool calls; awaitingActions names the frontend calls the executor must run),
 * "tool_result" or "agent_error" (a failed run; the text says why).
 */
export class AgenticMessage extends BaseMessage {
  constructor(receiverId: string, receiverType: ReceiverType, type: string) { super(receiverId, receiverType, "agentic", type); }
  getText(): string { return this.text ?? ""; }
  getRunId(): string | undefined { return str(this.data["runId"]); }
  getAgentId(): string | undefined { return str(this.data["agentId"]); }
  /** The AG-UI message id of the answer (matches the live agent events' messageId). */
  getAgentMessageId(): string | undefined { return str(this.data["messageId"]); }
  getToolCalls(): ToolCall[] {
    const calls = this.data["toolCalls"];
    if (!Array.isArray(calls)) return [];
    return calls.filter(isObject).map((c: JSONObject) => {
      const call: { -readonly [K in keyof ToolCall]: ToolCall[K] } = {
        id: str(c["id"]) ?? "",
        name: str(c["name"]) ?? "",
        arguments: str(c["arguments"]) ?? "",
        frontend: c["frontend"] === true,
      };
      const dn = str(c["displayName"]);
      const et = str(c["executionText"]);
      if (dn !== undefined) call.displayName = dn;
      if (et !== undefined) call.executionText = et;
      return call;
    });
  }
  /** The reasoning the agent did before this answer (assistant messages), if any. */
  getReasoning(): AgentReasoning | undefined {
    const r = this.data["reasoning"];
    if (this.type !== "assistant" || !isObject(r)) return undefined;
    const text = str(r["text"]);
    if (!text) return undefined;
    const ms = r["durationMs"];
    return typeof ms === "number" && Number.isFinite(ms) && ms > 0 ? { text, durationMs: ms } : { text };
  }
  /** Ids of the frontend calls the run waits for (assistant messages). */
  getAwaitingActions(): string[] {
    const a = this.data["awaitingActions"];
    return Array.isArray(a) ? a.filter((x): x is string => typeof x === "string") : [];
  }
  /** The uid whose client runs the awaited actions. */
  getExecutor(): string | undefined { return str(this.data["executor"]); }
  getToolResult(): ToolResult | undefined {
    if (this.type !== "tool_result") return undefined;
    const r: { -readonly [K in keyof ToolResult]: ToolResult[K] } = {
      toolCallId: str(this.data["toolCallId"]) ?? "",
      name: str(this.data["name"]) ?? "",
      frontend: this.data["frontend"] === true,
    };
    const result = str(this.data["result"]);
    const error = str(this.data["error"]);
    if (result !== undefined) r.result = result;
    if (error !== undefined) r.error = error;
    return r;
  }
  /** The approval of an approval_request or approval_decision message, as it is now. */
  getApproval(): Approval | undefined {
    if (this.type !== "approval_request" && this.type !== "approval_decision") return undefined;
    return toApproval(this.data);
  }
  /** The failure code of an agent_error message (AGENT_UNREACHABLE, …). */
  getErrorCode(): string | undefined { return this.type === "agent_error" ? str(this.data["code"]) : undefined; }
  setText(text: string): void { this.text = text; }
}
