/** What a client shows in an empty conversation with an agent. */
export interface AgentProfile {
  readonly agentId: string;
  readonly name: string;
  readonly icon?: string;
  readonly greeting?: string;
  readonly introductoryMessage?: string;
  readonly suggestedMessages: readonly string[];
}

/**
 * An AG-UI event as the agent sent it (RUN_STARTED, REASONING_START / REASONING_MESSAGE_START /
 * _CONTENT / _END / REASONING_END, TEXT_MESSAGE_START / _CONTENT / _END, TOOL_CALL_START /
 * _ARGS / _END, TOOL_CALL_RESULT, RUN_FINISHED, RUN_ERROR, …). The service
 * adds displayName, executionText and frontend to TOOL_CALL_START of frontend actions, and
 * reports failures as one RUN_ERROR with code and message.
 */
export interface AGUIEvent {
  readonly type: string;
  readonly timestamp?: number;
  readonly threadId?: string;
  readonly runId?: string;
  readonly messageId?: string;
  readonly role?: string;
  readonly delta?: string;
  readonly toolCallId?: string;
  readonly toolCallName?: string;
  readonly parentMessageId?: string;
  readonly displayName?: string;
  readonly executionText?: string;
  readonly frontend?: boolean;
  readonly content?: string;
  readonly message?: string;
  readonly code?: string;
  readonly [key: string]: unknown;
}

/** A live "agent" frame: one AG-UI event of a run in a conversation (never stored, no pos). */
export interface AgentEvent {
  readonly conversationId: string;
  readonly agentId: string;
  /** The chat-level run (the X-Agent-Run header of the message that started it). */
  readonly runId: string;
  readonly event: AGUIEvent;
}

/** The result of a frontend action: any JSON result, or an error sentence. */
export type ActionResult = { result: unknown } | { error: string };

/** Where an approval request is: waiting, or decided (expired requests count as declined). */
export type ApprovalStatus = "pending" | "approved" | "declined" | "expired";

/**
 * A tool call an agent run stopped for, waiting for one of its approvers (the data of
 * approval_request and approval_decision messages). Times are seconds since the epoch.
 */
export interface Approval {
  readonly id: string;
  readonly conversationId: string;
  readonly agentId: string;
  readonly runId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  /** The call's arguments as JSON text. */
  readonly arguments: string;
  /** The user whose message started the run. */
  readonly requestedBy: string;
  /** Who may decide. */
  readonly approvers: readonly string[];
  readonly status: ApprovalStatus;
  readonly decidedBy?: string;
  readonly reason?: string;
  readonly decidedAt?: number;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** The approval_request messages (the conversation's, and approvers' one-to-ones). */
  readonly messageIds: readonly number[];
}

/** An approver's answer. */
export interface ApprovalDecision {
  readonly approved: boolean;
  /** Told to the agent and stored with the decision (at most 500 characters). */
  readonly reason?: string;
}

/** How the chat service reaches an agent: AG-UI streaming, or Mastra's /generate. */
export type AgentProvider = "ag-ui" | "mastra" | "a2a";

/** An agent configuration as admins read it (GET /agents); headers are write-only. */
export interface AgentConfig {
  readonly agentId: string;
  readonly provider: AgentProvider;
  readonly name: string;
  readonly icon?: string;
  readonly greeting?: string;
  readonly introductoryMessage?: string;
  readonly suggestedMessages: readonly string[];
  readonly deploymentUrl?: string;
  readonly agentRef?: string;
  readonly hasHeaders: boolean;
  readonly enabled: boolean;
  /** Who approves the tool calls the agent stops for (uids, group:<guid>:admins|moderators). */
  readonly approvers?: readonly string[];
  /** Who may use the agent (uids, group:<guid>, idp:<provider group>); empty: everyone. */
  readonly audience?: readonly string[];
  /** How the chat proves who is asking: the stored headers, also a JWT it signs per person
   * (chat-jwt; needs a chat started with --issuer-url), or its ServiceAccount token
   * (service-account; in-cluster Agents of a chat running in the cluster). */
  readonly auth?: AgentAuth;
  /** The aud of chat-jwt tokens (default the URL the chat calls) or service-account tokens
   * (default agentry.dev/agents/<namespace>/<name>). */
  readonly tokenAudience?: string;
  /** What the agent's tokens cost (US dollars per million); absent: no cost is shown. */
  readonly prices?: AgentPrices;
  /** What the agent said it supports when the chat last read its description (AG-UI's
   * AgentCapabilities); absent when not known. Read-only: saving a configuration keeps it. */
  readonly capabilities?: AgentCapabilities;
}

/** An agent's prices in US dollars per million input and output tokens. */
export interface AgentPrices {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
}

/** The parts of AG-UI's AgentCapabilities the chat shows (what the agent declares; an absent
 * field is not declared, which is not the same as unsupported). */
export interface AgentCapabilities {
  readonly transport?: { readonly streaming?: boolean; readonly resumable?: boolean };
  readonly tools?: { readonly supported?: boolean; readonly clientProvided?: boolean; readonly items?: readonly { readonly name: string }[] };
  readonly humanInTheLoop?: { readonly supported?: boolean; readonly approvals?: boolean; readonly interrupts?: boolean };
  readonly reasoning?: { readonly supported?: boolean; readonly streaming?: boolean };
}

/** An agent's runs and tokens over a period; cost only for an agent with prices. */
export interface UsageTotals {
  readonly runs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** US dollars at the agent's current prices; absent for an agent without prices. */
  readonly cost?: number;
}

/** One agent's usage (GET /agent-usage). */
export interface AgentUsage {
  readonly agentId: string;
  readonly name: string;
  readonly prices?: AgentPrices;
  readonly today: UsageTotals;
  readonly last7Days: UsageTotals;
}

/** Every agent's usage, from the chat's own records of its agent calls. Today is since 00:00
 * UTC (todaySince); the last 7 days since 00:00 UTC six days ago (last7DaysSince). */
export interface AgentUsageReport {
  readonly items: readonly AgentUsage[];
  readonly todaySince: string;
  readonly last7DaysSince: string;
}

/** How the chat authenticates to an agent. */
export type AgentAuth = "headers" | "chat-jwt" | "service-account";

/** An agent configuration to save (PUT /agents/{id}): headers only when typed (absent keeps the stored ones). */
export interface AgentConfigWrite extends Omit<AgentConfig, "agentId" | "hasHeaders" | "capabilities"> {
  readonly headers?: Readonly<Record<string, string>>;
}

/** A frontend action of an agent: a tool the agent calls that runs in the user's client. */
export interface FrontendAction {
  readonly agentId: string;
  readonly name: string;
  readonly displayName: string;
  readonly executionText?: string;
  readonly description: string;
  /** A JSON Schema of the inputs. */
  readonly parameters: unknown;
}

/** A frontend action to save (PUT /agents/{id}/actions/{name}). */
export type FrontendActionWrite = Omit<FrontendAction, "agentId" | "name">;

/** What POST /agents/{id}/import did: the configuration after it and the actions it added. */
export interface AgentImport {
  readonly agent: AgentConfig;
  readonly addedActions: readonly string[];
}

/** What POST /agents/{id}/test saw of the agent's first answer. */
export interface ConnectionTest {
  readonly ok: boolean;
  readonly status: number;
  readonly contentType: string;
  readonly firstEvents: readonly string[] | null;
  readonly error?: string;
}
