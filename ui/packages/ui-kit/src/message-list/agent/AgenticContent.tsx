// CONTRACT (see options/MessageOptions.tsx): the content of a stored agentic message.
import { Chat } from "@agentry/chat-sdk";
import { useMemo, useState } from "react";
import type { ChatMessageListProps } from "../props";
import { ApprovalCard } from "./ApprovalCard";
import { Reasoning } from "./Reasoning";
import { displayNameOf, humanize, rememberDisplayName } from "./conversation";
import { defaultTextFormatters, formatText } from "../bubble/formatters";

export interface AgenticContentProps {
  message: Chat.AgenticMessage;
  props: ChatMessageListProps;
  /** The tool calls show in the run's steps block instead. */
  hideToolCalls?: boolean;
  /** The signed-in user's uid (approval requests offer their buttons to approvers). */
  me?: string;
  /** Where a failed "Try again" goes (the list's onError). */
  onError?: (error: unknown) => void;
}

/** Assistant text (formatted) with its tool calls (execution text), tool results, run errors. */
export function AgenticContent({ message, props, hideToolCalls, me, onError }: AgenticContentProps) {
  switch (message.getType()) {
    case "approval_request":
      return <ApprovalCard message={message} props={props} me={me ?? ""} />;
    case "approval_decision": {
      const a = message.getApproval();
      return (
        <p className="chat-agentic chat-agentic--decision" data-state={a?.status}>
          <span className="chat-agentic__mark" aria-hidden="true">{a?.status === "approved" ? "✓" : "✗"}</span> {message.getText()}
        </p>
      );
    }
    case "tool_result":
      return <ToolResultLine message={message} />;
    case "agent_error":
      return <AgentError message={message} onError={onError} />;
    default:
      return <AssistantContent message={message} props={props} hideToolCalls={!!hideToolCalls} />;
  }
}

/** A failed run, in words, and "Try again": the agent is asked again over the conversation as it
 * is (the question is not sent twice); the new run shows as any run does. */
function AgentError({ message, onError }: { message: Chat.AgenticMessage; onError: ((error: unknown) => void) | undefined }) {
  const [state, setState] = useState<"idle" | "asking" | "asked">("idle");
  const retry = (): void => {
    setState("asking");
    Chat.retryAgentRun(message.getId()).then(
      () => setState("asked"),
      (err: unknown) => {
        setState("idle");
        onError?.(err);
      },
    );
  };
  return (
    <div className="chat-agentic chat-agentic--error" data-code={message.getErrorCode()}>
      <span className="chat-agentic__error-icon" aria-hidden="true">!</span>
      <div className="chat-agentic__error-body">
        <p className="chat-agentic__error-text">{message.getText() || "The agent could not answer."}</p>
        {state === "asked" ? null : (
          <button type="button" className="chat-agentic__retry" disabled={state === "asking"} onClick={retry}>
            {state === "asking" ? "Asking again…" : "Try again"}
          </button>
        )}
      </div>
    </div>
  );
}

function AssistantContent({ message, props, hideToolCalls }: AgenticContentProps) {
  const text = message.getText();
  const all = message.getToolCalls();
  const calls = hideToolCalls ? [] : all;
  const formatters = props.textFormatters ?? defaultTextFormatters;
  const nodes = useMemo(() => formatText(text, message, formatters), [text, message, formatters]);
  const reasoning = message.getReasoning();
  for (const c of all) rememberDisplayName(c.id, c.displayName);
  return (
    <div className="chat-agentic chat-agentic--assistant">
      {text ? (
        <div className="chat-text-bubble">
          <p className="chat-text-bubble__text">{nodes}</p>
        </div>
      ) : null}
      {calls.length ? (
        <ul className="chat-agentic__tools" aria-label="Actions">
          {calls.map((c) => (
            <li key={c.id} className="chat-agent-tool" data-state="called" data-tool={c.name}>
              <span className="chat-agent-tool__icon" aria-hidden="true">⚙</span>
              <span className="chat-agent-tool__text">{c.displayName ?? humanize(c.name)}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {reasoning ? <Reasoning text={reasoning.text} durationMs={reasoning.durationMs} /> : null}
    </div>
  );
}

function ToolResultLine({ message }: { message: Chat.AgenticMessage }) {
  const r = message.getToolResult();
  const name = r ? displayNameOf(r.toolCallId, r.name) : "Action";
  if (r?.error) {
    return (
      <p className="chat-agentic chat-agentic--tool-result" data-state="error">
        <span className="chat-agentic__mark" aria-hidden="true">✗</span>
        <span className="chat-visually-hidden">Failed: </span> {name}: {r.error}
      </p>
    );
  }
  return (
    <p className="chat-agentic chat-agentic--tool-result" data-state="done">
      <span className="chat-agentic__mark" aria-hidden="true">✓</span>
      <span className="chat-visually-hidden">Done: </span> {name}
    </p>
  );
}
