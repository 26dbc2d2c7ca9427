// The open conversation (header, message list, composer) and the thread panel beside it.
import { Chat } from "@agentry/chat-sdk";
import { Avatar, ChatMessageList } from "@agentry/ui-kit";
import { useEffect, useRef, useState } from "react";
import { useGroupMembers } from "./members";
import { Composer, type Mentionable } from "./Composer";
import { recipeTemplates, showRecipeCard } from "./RecipeCard";
import { presenceText } from "./Sidebar";

export type Target = { kind: "group"; group: Chat.Group } | { kind: "user"; user: Chat.User };

const agentActions = { "show-recipe-card": showRecipeCard };

export function titleOf(t: Target): string {
  return t.kind === "group" ? t.group.getName() || t.group.getGuid() : t.user.getName() || t.user.getUid();
}

export function Welcome({ me }: { me: Chat.User }) {
  return (
    <div className="agentry-web__empty">
      <h1 className="agentry-web__title">Welcome, {me.getName() || me.getUid()}</h1>
      <p className="agentry-web__muted">Pick a group, a person or an agent on the left to start chatting.</p>
    </div>
  );
}

export interface ConversationProps {
  target: Target;
  me: Chat.User;
  /** People and agents (for @-mentions). */
  directory: readonly Chat.User[];
  onOpenThread(m: Chat.BaseMessage): void;
  onBack(): void;
  detailsOpen: boolean;
  onToggleDetails(): void;
  /** Opens at this message, highlighted (a search result). */
  goTo?: number | undefined;
}

export function Conversation({ target, me, directory, onOpenThread, onBack, detailsOpen, onToggleDetails, goTo }: ConversationProps) {
  const goToMessageId = goTo ? String(goTo) : undefined;
  const { members } = useGroupMembers(target.kind === "group" ? target.group.getGuid() : undefined);
  // The directory's copy is the freshest (it reloads with presence every 20 s).
  const person = target.kind === "user" ? directory.find((u) => u.getUid() === target.user.getUid()) : undefined;
  const isAgent = target.kind === "user" && target.user.getKind() === "agent";
  const title = titleOf(target);
  const count = members?.length ?? (target.kind === "group" ? target.group.getMembersCount() : 0);
  const sub =
    target.kind === "group"
      ? `Group · ${count} member${count === 1 ? "" : "s"}`
      : isAgent
        ? "Agent"
        : presenceText(person ?? target.user) || `@${target.user.getUid()}`;
  return (
    <div className="agentry-web__conversation">
      <header className="agentry-web__conversation-head">
        <button type="button" className="agentry-web__button agentry-web__button--quiet agentry-web__back" onClick={onBack}>
          <span aria-hidden="true">←</span>
          <span className="agentry-web__sr-only">Back to conversations</span>
        </button>
        <Avatar className="agentry-web__avatar" name={title} image={target.kind === "group" ? target.group.getIcon() : target.user.getAvatar()}
          online={target.kind === "user" && !isAgent && (person ?? target.user).getStatus() ? (person ?? target.user).getStatus() === "online" : undefined} />
        <div className="agentry-web__conversation-name">
          <h1 className="agentry-web__conversation-title">{title}</h1>
          <p className="agentry-web__list-sub">{sub}</p>
        </div>
        {target.kind === "group" ? (
          <button type="button" className="agentry-web__button agentry-web__button--secondary agentry-web__details-button" aria-expanded={detailsOpen}
            onClick={onToggleDetails}>
            Group details
          </button>
        ) : null}
      </header>
      <div className="agentry-web__messages">
        {target.kind === "group" ? (
          <ChatMessageList group={target.group} onThreadRepliesClick={onOpenThread} showUnreadDivider goToMessageId={goToMessageId}
            showTraceIds={me.getRole() === "admin"} />
        ) : (
          <ChatMessageList user={target.user} onThreadRepliesClick={onOpenThread} isAgentChat={isAgent} loadLastAgentConversation={isAgent}
            showUnreadDivider={!isAgent} goToMessageId={goToMessageId} showTraceIds={me.getRole() === "admin"}
            agentActions={isAgent ? agentActions : undefined} templates={isAgent ? recipeTemplates : undefined}
            hideReplyInThreadOption={isAgent} />
        )}
      </div>
      <Composer receiverId={target.kind === "group" ? target.group.getGuid() : target.user.getUid()}
        receiverType={target.kind === "group" ? Chat.RECEIVER_TYPE.GROUP : Chat.RECEIVER_TYPE.USER}
        label={isAgent ? `Ask ${title}` : `Message ${title}`} mentionables={mentionables(target, me, directory, members)} />
    </div>
  );
}

/** Who can be mentioned here: a group's members, and the directory's agents (one not in the
 * group is offered, marked, as a mention of it would go unanswered); one to one, the other
 * person and the agents. */
function mentionables(target: Target, me: Chat.User, directory: readonly Chat.User[], members: readonly Chat.GroupMember[] | undefined): Mentionable[] {
  const out = new Map<string, Mentionable>();
  if (target.kind === "group") {
    for (const m of members ?? []) if (m.getUid() !== me.getUid()) out.set(m.getUid(), { uid: m.getUid(), name: m.getName() || m.getUid(), agent: m.getKind() === "agent", member: true });
  } else if (target.user.getKind() !== "agent") {
    out.set(target.user.getUid(), { uid: target.user.getUid(), name: target.user.getName() || target.user.getUid(), agent: false, member: true });
  }
  if (target.kind === "group") {
    for (const u of directory) {
      if (u.getKind() === "agent" && !out.has(u.getUid())) out.set(u.getUid(), { uid: u.getUid(), name: u.getName() || u.getUid(), agent: true, member: members === undefined });
    }
  }
  return [...out.values()];
}

export function ThreadPanel({ target, parent, onClose }: { target: Target; parent: Chat.BaseMessage; onClose(): void }) {
  const text = parent instanceof Chat.TextMessage ? parent.getText() : "";
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => closeRef.current?.focus(), []);
  return (
    <aside className="agentry-web__thread" aria-label="Thread">
      <header className="agentry-web__thread-head">
        <div>
          <h2 className="agentry-web__section-title agentry-web__thread-title">Thread</h2>
          <p className="agentry-web__thread-parent">
            <strong>{parent.getSender()?.getName() ?? ""}</strong> {text}
          </p>
        </div>
        <button ref={closeRef} type="button" className="agentry-web__button agentry-web__button--quiet" onClick={onClose}>
          Close thread
        </button>
      </header>
      <div className="agentry-web__messages">
        {target.kind === "group" ? (
          <ChatMessageList group={target.group} parentMessageId={parent.getId()} />
        ) : (
          <ChatMessageList user={target.user} parentMessageId={parent.getId()} />
        )}
      </div>
      <Composer receiverId={target.kind === "group" ? target.group.getGuid() : target.user.getUid()}
        receiverType={target.kind === "group" ? Chat.RECEIVER_TYPE.GROUP : Chat.RECEIVER_TYPE.USER}
        parentMessageId={parent.getId()} label="Reply in thread" />
    </aside>
  );
}
