// CONTRACT (see options/MessageOptions.tsx): the content of a stored agentic message.
import type { Chat } from "@agentry/chat-sdk";
import { useMemo } from "react";
import type { ChatMessageListProps } from "../props";
import { ApprovalCard } from "./ApprovalCard";
import { displayNameOf, humanize, rememberDisplayName } from "./conversation";
import { defaultTextFormatters, formatText } from "../bubble/formatters";

export interface AgenticContentProps {
  message: Chat.AgenticMessage;
  props: ChatMessageListProps;
  /** The tool calls show in the run's steps block instead. */
  hideToolCalls?: boolean;
  /** The signed-in user's uid (approval requests offer their buttons to approvers). */
  me?: string;
}

/** Assistant text (formatted) with its tool calls (execution text), tool results, run errors. */
export function AgenticContent({ message, props, hideToolCalls, me }: AgenticContentProps) {
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
      return (
        <div className="chat-agentic chat-agentic--error" data-code={message.getErrorCode()}>
          <span className="chat-agentic__error-icon" aria-hidden="true">!</span>
          <p className="chat-agentic__error-text">{message.getText() || "The agent could not answer."}</p>
        </div>
      );
    default:
      return <AssistantContent message={message} props={props} hideToolCalls={!!hideToolCalls} />;
  }
}

function AssistantContent({ message, props, hideToolCalls }: AgenticContentProps) {
  const text = message.getText();
  const all = message.getToolCalls();
  const calls = hideToolCalls ? [] : all;
  const formatters = props.textFormatters ?? defaultTextFormatters;
  const nodes = useMemo(() => formatText(text, message, formatters), [text, message, formatters]);
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
