// CONTRACT (see options/MessageOptions.tsx): everything agent-specific of the list.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useMemo, useRef, useState } from "react";
import { Avatar } from "../../base/Avatar";
import { ChatMessageEvents, MessageStatus } from "../../events";
import { MessageListAlignment } from "../../types";
import { streamMessages, type StreamMessage, type StreamToolCall } from "../agentStream";
import type { ChatMessageListProps } from "../props";
import { agentOf, conversationIdFor, humanize } from "./conversation";
import { defaultTextFormatters, formatText } from "../bubble/formatters";
import { Reasoning } from "./Reasoning";
import { useAgentStream } from "./useAgentStream";

export interface AgentViewProps {
  props: ChatMessageListProps;
  /** The agent (props.user when it is an agent) or the group (agents answer mentions). */
  user?: Chat.User;
  group?: Chat.Group;
  loggedInUser: Chat.User;
  /** No stored message is shown: render the greeting, introductory and suggested messages. */
  isEmpty: boolean;
  /** The live answer grew: the core keeps the view at the bottom if the reader was there. */
  onGrow(): void;
  onError(error: unknown): void;
  /** Whether a run is under way here, as it changes. */
  onRunning?(running: boolean): void;
}

/**
 * Rendered by the core after the last stored message: the streaming answer (text, tool calls
 * with their execution text) until its stored copy arrives, the run's error, and — when
 * isEmpty — the agent's greeting, introductory message and suggested messages. It also runs
 * props.agentActions for stored messages awaiting a frontend action (live only, once per call).
 */
export function AgentView({ props, user, group, loggedInUser, isEmpty, onGrow, onError, onRunning }: AgentViewProps) {
  const agent = group ? undefined : agentOf(props, user);
  // Agents answer one-to-one chats with them and mentions in groups; not inside threads.
  const active = !props.parentMessageId && (!!group || !!agent);
  const conversationId = active ? conversationIdFor(user, group, loggedInUser.getUid()) : undefined;
  const { state, storedErrorRuns } = useAgentStream({ conversationId, me: loggedInUser.getUid(), actions: props.agentActions, onError });
  const onGrowRef = useRef(onGrow);
  onGrowRef.current = onGrow;
  useEffect(() => {
    onGrowRef.current();
  }, [state]);
  const running = !!state.running;
  useEffect(() => onRunning?.(running), [running, onRunning]);
  const groupAgents = useAgentNames(group ? state.running?.agentId : undefined);

  if (!active) return null;
  const live = streamMessages(state).filter((m) => m.text !== "" || m.toolCalls.length > 0 || m.reasoning !== undefined);
  const nameOf = (agentId: string) => (agent && agent.getUid() === agentId ? agent.getName() : (groupAgents[agentId] ?? agentId));
  const error = state.error && !storedErrorRuns.has(state.error.runId) ? state.error : undefined;
  const thinking = state.running && !live.some((m) => !m.ended || m.toolCalls.some((c) => c.result === undefined));
  return (
    <div className="chat-agent-view">
      {isEmpty && agent && !state.running && live.length === 0 ? <AgentWelcome agent={agent} onError={onError} /> : null}
      {live.map((m) => (
        <LiveBubble key={m.messageId} message={m} agentName={nameOf(state.running?.agentId ?? agent?.getUid() ?? "")} avatar={agent?.getAvatar()} props={props}
          showSender={!!group || props.messageAlignment === MessageListAlignment.left} />
      ))}
      {thinking ? (
        <div className="chat-agent-view__thinking" role="status">
          <span className="chat-agent-view__dots" aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
          <span className="chat-agent-view__thinking-text">{nameOf(state.running!.agentId)} is thinking…</span>
        </div>
      ) : null}
      {error ? (
        <p className="chat-agent-view__error" role="alert">
          {error.message || "The agent could not answer."}
        </p>
      ) : null}
    </div>
  );
}

/** Names of agents answering in a group (their user records), looked up once each. */
function useAgentNames(agentId: string | undefined): Readonly<Record<string, string>> {
  const [names, setNames] = useState<Readonly<Record<string, string>>>({});
  useEffect(() => {
    if (!agentId || names[agentId]) return;
    let live = true;
    Chat.getUser(agentId).then(
      (u) => live && setNames((n) => ({ ...n, [agentId]: u.getName() })),
      () => undefined, // the uid will do
    );
    return () => {
      live = false;
    };
  }, [agentId, names]);
  return names;
}

function ToolCallChip({ call }: { call: StreamToolCall }) {
  const done = call.result !== undefined;
  const text = done ? (call.displayName ?? humanize(call.name)) : (call.executionText ?? call.displayName ?? humanize(call.name));
  return (
    <span className="chat-agent-tool" data-state={done ? "done" : "running"} data-tool={call.name}>
      {done ? (
        <span className="chat-agent-tool__check" aria-hidden="true">✓</span>
      ) : (
        <span className="chat-agent-tool__spinner" aria-hidden="true" />
      )}
      <span className="chat-agent-tool__text">{text}</span>
    </span>
  );
}

function LiveBubble({ message, agentName, avatar, props, showSender }: { message: StreamMessage; agentName: string; avatar: string | undefined; props: ChatMessageListProps; showSender: boolean }) {
  // Formatters get a message; the live text has none yet, so they get a stand-in.
  const stand = useMemo(() => new Chat.AgenticMessage("", "user", "assistant"), []);
  const nodes = useMemo(() => formatText(message.text, stand, props.textFormatters ?? defaultTextFormatters), [message.text, stand, props.textFormatters]);
  const streaming = !message.ended || message.toolCalls.some((c) => c.result === undefined);
  // The list's bubble markup (incoming, agentic), so the stored copy replaces it in place.
  return (
    <div className="chat-message-list__message chat-message-list__message--incoming chat-message-list__message--first chat-agent-live"
      data-agent-message-id={message.messageId} aria-busy={streaming}>
      <div className="chat-message-bubble chat-message-bubble-incoming chat-message-bubble--agentic">
        {showSender && !props.hideAvatar ? (
          <div className="chat-message-bubble__leading-view">
            <Avatar name={agentName} image={avatar} />
          </div>
        ) : null}
        <div className="chat-message-bubble__wrapper">
          {showSender ? (
            <div className="chat-message-bubble__header-view">
              <span className="chat-message-bubble__sender-name">{agentName}</span>
            </div>
          ) : null}
          <div className="chat-message-bubble__row">
            <div className="chat-message-bubble__body">
              <div className="chat-agentic chat-agentic--assistant">
                {message.text ? (
                  <div className="chat-text-bubble">
                    <p className="chat-text-bubble__text">
                      {nodes}
                      {!message.ended ? <span className="chat-agent-live__caret" aria-hidden="true" /> : null}
                    </p>
                  </div>
                ) : null}
                {message.toolCalls.length ? (
                  <div className="chat-agentic__tools">
                    {message.toolCalls.map((c) => (
                      <ToolCallChip key={c.id} call={c} />
                    ))}
                  </div>
                ) : null}
                {message.reasoning ? (
                  <Reasoning text={message.reasoning.text} live={message.reasoning.endedAt === undefined}
                    durationMs={message.reasoning.endedAt === undefined ? undefined : message.reasoning.endedAt - message.reasoning.startedAt} />
                ) : null}
              </div>
            </div>
          </div>
        </div>
      </div>
    </div>
  );
}

function AgentWelcome({ agent, onError }: { agent: Chat.User; onError(e: unknown): void }) {
  const [profile, setProfile] = useState<Chat.AgentProfile | undefined>();
  const [sending, setSending] = useState(false);
  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;
  const uid = agent.getUid();
  useEffect(() => {
    let live = true;
    Chat.getAgentProfile(uid).then(
      (p) => live && setProfile(p),
      (e: unknown) => live && onErrorRef.current(e),
    );
    return () => {
      live = false;
    };
  }, [uid]);
  if (!profile || (!profile.greeting && !profile.introductoryMessage && profile.suggestedMessages.length === 0)) return null;
  const send = async (text: string) => {
    setSending(true);
    try {
      const sent = await Chat.sendMessage(new Chat.TextMessage(uid, text, "user"));
      ChatMessageEvents.ccMessageSent.next({ message: sent, status: MessageStatus.success });
    } catch (e) {
      onErrorRef.current(e);
    } finally {
      setSending(false);
    }
  };
  const name = profile.name || agent.getName();
  return (
    <section className="chat-agent-welcome" aria-label={`Welcome from ${name}`}>
      <Avatar name={name} image={profile.icon ?? agent.getAvatar()} />
      {profile.greeting ? <p className="chat-agent-welcome__greeting">{profile.greeting}</p> : null}
      {profile.introductoryMessage ? <p className="chat-agent-welcome__intro">{profile.introductoryMessage}</p> : null}
      {profile.suggestedMessages.length ? (
        <div className="chat-agent-welcome__suggestions" role="group" aria-label="Suggested messages">
          {profile.suggestedMessages.map((s) => (
            <button key={s} type="button" className="chat-ui-chip chat-agent-welcome__suggestion" disabled={sending} onClick={() => void send(s)}>
              {s}
            </button>
          ))}
        </div>
      ) : null}
    </section>
  );
}
