/**
 * One message of the list: the bubble (content, status line, receipt), the sender's name and
 * avatar where needed, and the places the message features plug into — options on hover and
 * keyboard focus, reactions under the bubble, the translation, the inline editor, the
 * moderation note and the thread reply count. What every bubble shares comes from the list's
 * context (../context.tsx); the props are this message's own.
 */
import { memo, type ReactNode } from "react";
import { Chat } from "@agentry/chat-sdk";
import { Avatar } from "../../base/Avatar";
import { formatCalendar, sentAtDefaults } from "../../dates";
import { MessageListAlignment } from "../../types";
import { AgenticContent } from "../agent/AgenticContent";
import { useMessageListContext, type MessageListContextValue } from "../context";
import { InlineEditor } from "../options/InlineEditor";
import { MessageOptions } from "../options/MessageOptions";
import { Reactions } from "../options/Reactions";
import { ActionMessage, actionText } from "./ActionMessage";
import { MediaContent } from "./MediaContent";
import { QuotedMessage } from "./QuotedMessage";
import { StatusInfo } from "./StatusInfo";
import { TextContent } from "./TextContent";

export interface MessageBubbleProps {
  message: Chat.BaseMessage;
  /** The first message of a run of one sender: it shows the sender's name and avatar. */
  firstOfRun: boolean;
  /** An agent's answer whose tool calls show in the steps block after it. */
  toolCallsInSteps?: boolean;
  highlighted: boolean;
  /** Roving tab stop: one message of the list is in the tab order. */
  tabbable: boolean;
  translation: string | undefined;
  editing: boolean;
}

/** Content of a message by category and type; templates' contentView wins. */
function content(m: Chat.BaseMessage, ctx: MessageListContextValue, toolCallsInSteps: boolean): ReactNode {
  const f = ctx.formatters;
  if (m.getDeletedAt()) {
    return (
      <div className="chat-delete-bubble">
        <span className="chat-delete-bubble__text">{m.getSender()?.getUid() === ctx.me.getUid() ? "You deleted this message" : "This message was deleted"}</span>
      </div>
    );
  }
  const t = ctx.templateOf(m);
  if (t?.contentView) return t.contentView(m);
  if (m instanceof Chat.AgenticMessage) return <AgenticContent message={m} props={ctx.listProps} hideToolCalls={toolCallsInSteps} me={ctx.me.getUid()} onError={ctx.onError} />;
  if (m instanceof Chat.TextMessage) return <TextContent message={m} text={m.getText()} formatters={f} />;
  if (m instanceof Chat.MediaMessage) return <MediaContent message={m} formatters={f} />;
  if (m instanceof Chat.CustomMessage) {
    const text = m.getConversationText();
    return (
      <div className="chat-custom-bubble">
        {text ? <TextContent message={m} text={text} formatters={f} /> : <span className="chat-custom-bubble__type">{m.getType()}</span>}
      </div>
    );
  }
  return <div className="chat-unsupported-bubble">This message cannot be shown</div>;
}

function moderationNote(m: Chat.BaseMessage): ReactNode {
  const s = m.getModerationStatus();
  if (s === "pending") {
    return <p className="chat-message-bubble__moderation-view chat-message-bubble__moderation-view--pending">Awaiting moderation: not visible to others yet</p>;
  }
  if (s === "disapproved") {
    return <p className="chat-message-bubble__moderation-view chat-message-bubble__moderation-view--disapproved">Blocked by moderation: this message was not delivered</p>;
  }
  return null;
}

function Bubble(p: MessageBubbleProps) {
  const ctx = useMessageListContext();
  const m = p.message;
  const me = ctx.me.getUid();
  const lp = ctx.listProps;
  const id = m.getId();
  const outgoing = m.getSender()?.getUid() === me;
  const senderName = outgoing ? "You" : (m.getSender()?.getName() ?? "Unknown");
  const label = `${senderName}, ${formatCalendar(new Date(m.getSentAt() * 1000), lp.messageSentAtDateTimeFormat, sentAtDefaults)}`;
  const common = { "data-message-id": id, tabIndex: p.tabbable ? 0 : -1, onFocus: () => ctx.onFocusMessage(id) };
  const highlight = p.highlighted ? " chat-message-list__message--highlighted" : "";

  if (m.getCategory() === "action") {
    return (
      <article className={`chat-message-list__message chat-message-list__message--action${highlight}`} aria-label={actionText(m, me)} {...common}>
        <ActionMessage message={m} me={me} />
      </article>
    );
  }
  const direction = outgoing ? "outgoing" : "incoming";
  const cls = `chat-message-list__message chat-message-list__message--${direction}${highlight}` + (p.firstOfRun ? " chat-message-list__message--first" : "");
  const bubbleView = ctx.templateOf(m)?.bubbleView;
  return (
    <article className={cls} aria-label={label} {...common}>
      {bubbleView ? bubbleView(m) : <StandardBubble {...p} ctx={ctx} outgoing={outgoing} senderName={senderName} />}
    </article>
  );
}

function StandardBubble(p: MessageBubbleProps & { ctx: MessageListContextValue; outgoing: boolean; senderName: string }) {
  const { ctx, outgoing, message: m } = p;
  const lp = ctx.listProps;
  const deleted = !!m.getDeletedAt();
  const sender = m.getSender();
  const t = ctx.templateOf(m);
  const left = lp.messageAlignment === MessageListAlignment.left;
  // Who sent it is told by the side in a standard one-to-one list; otherwise by name/avatar.
  // An agent's replies carry its avatar and name, as a chat product marks a bot's answers.
  const named = left || ((ctx.isGroup || !!lp.isAgentChat) && !outgoing);
  const showSender = named && p.firstOfRun;
  const withAvatar = named && !lp.hideAvatar;
  const direction = outgoing ? "outgoing" : "incoming";
  // A template's footer replaces the reactions row; null or undefined for a message keeps it,
  // so a footer only some messages need (a card under one reply) does not cost the others
  // their reactions. An empty fragment hides the row.
  // With its tool calls shown in the steps block after it, the footer goes there too.
  const footer = t?.footerView && !p.toolCallsInSteps ? t.footerView(m) : undefined;
  return (
    <div className={`chat-message-bubble chat-message-bubble-${direction}` + (m instanceof Chat.AgenticMessage ? " chat-message-bubble--agentic" : "")}>
      {withAvatar ? (
        <div className="chat-message-bubble__leading-view">{showSender ? <Avatar name={sender?.getName() ?? "?"} image={sender?.getAvatar()} /> : null}</div>
      ) : null}
      <div className="chat-message-bubble__wrapper">
        {t?.headerView ? (
          <div className="chat-message-bubble__header-view">{t.headerView(m)}</div>
        ) : showSender ? (
          <div className="chat-message-bubble__header-view">
            <span className="chat-message-bubble__sender-name">{outgoing ? ctx.me.getName() : p.senderName}</span>
          </div>
        ) : null}
        <BubbleRow {...p} />
        {!lp.hideModerationView && !deleted ? moderationNote(m) : null}
        {footer != null ? (
          <div className="chat-message-bubble__footer-view">{footer}</div>
        ) : !deleted ? (
          <Reactions message={m} props={lp} loggedInUser={ctx.me} onError={ctx.onError} />
        ) : null}
        {m.getReplyCount() > 0 && !ctx.inThread && !deleted ? (
          <button type="button" className="chat-message-bubble__thread-view-replies" onClick={() => lp.onThreadRepliesClick?.(m)}>
            {m.getReplyCount() === 1 ? "1 reply" : `${m.getReplyCount()} replies`}
          </button>
        ) : null}
      </div>
    </div>
  );
}

/** The bubble's body (quote, content or editor, translation, status line) and its options. */
function BubbleRow(p: MessageBubbleProps & { ctx: MessageListContextValue; outgoing: boolean }) {
  const { ctx, outgoing, message: m } = p;
  const deleted = !!m.getDeletedAt();
  const editing = p.editing && !deleted;
  const quoted = m.getQuotedMessage();
  return (
    <div className="chat-message-bubble__row">
      <div className={`chat-message-bubble__body${deleted ? " chat-message-bubble__body--deleted" : ""}`}>
        {quoted && !deleted ? <QuotedMessage quoted={quoted} me={ctx.me.getUid()} onOpen={ctx.onJumpTo} /> : null}
        {editing ? <InlineEditor message={m} onDone={ctx.onEditDone} onError={ctx.onError} /> : content(m, ctx, !!p.toolCallsInSteps)}
        {p.translation && !deleted ? (
          <div className="chat-message-bubble__translation">
            <span className="chat-message-bubble__translation-label">Translation</span>
            <p className="chat-message-bubble__translation-text">{p.translation}</p>
          </div>
        ) : null}
        <StatusInfo message={m} showReceipt={outgoing && !ctx.listProps.hideReceipts && !deleted} format={ctx.listProps.messageSentAtDateTimeFormat} />
      </div>
      {!deleted && !editing ? (
        <div className="chat-message-bubble__options">
          <MessageOptions message={m} isOutgoing={outgoing} props={ctx.listProps} loggedInUser={ctx.me} onTranslated={ctx.onTranslated} onEdit={ctx.onEdit} onError={ctx.onError} />
        </div>
      ) : null}
    </div>
  );
}

/** Re-renders only when its own message (a new copy on every change), its view state or the list's context changes. */
export const MessageBubble = memo(Bubble);
