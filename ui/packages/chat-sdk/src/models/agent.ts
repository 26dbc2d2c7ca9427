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
 * An AG-UI event as the agent sent it (RUN_STARTED, TEXT_MESSAGE_START / _CONTENT / _END,
 * TOOL_CALL_START / _ARGS / _END, TOOL_CALL_RESULT, RUN_FINISHED, RUN_ERROR, …). The service
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
