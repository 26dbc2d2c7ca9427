// CONTRACT between the list core (ChatMessageList, bubble) and the message features (options,
// reactions, editing, translation, agent, AI). The core renders these; the features own their
// bodies. Keep the exported names and props stable.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useId, useRef, useState, type RefObject } from "react";
import { useLive } from "../../base/useLive";
import { ChatMessageEvents, ChatUIEvents, MessageStatus } from "../../events";
import { useAIEnabled } from "../ai/useAIEnabled";
import type { ChatMessageListProps } from "../props";
import { DeleteDialog, FlagDialog, InfoDialog } from "./dialogs";
import { EmojiPicker } from "./EmojiPicker";
import { MoreIcon, optionIcons } from "./icons";
import { MenuButton } from "./Menu";
import { availableOptions, messageText, optionLabels, splitOptions, type MessageOptionId } from "./optionList";
import { copyText, translationLanguage } from "./platform";

export interface MessageOptionsProps {
  message: Chat.BaseMessage;
  isOutgoing: boolean;
  props: ChatMessageListProps;
  loggedInUser: Chat.User;
  /** Show a translation under the bubble (the core keeps it per message id). */
  onTranslated(messageId: number, text: string): void;
  /** Start inline editing of this message (the core then renders InlineEditor in the bubble). */
  onEdit(message: Chat.BaseMessage): void;
  /** Report an error the way the list does (onError / error handling). */
  onError(error: unknown): void;
}

type DialogKind = "delete" | "info" | "flag";

interface RunContext extends MessageOptionsProps {
  live: RefObject<boolean>;
  setStatus(s: string): void;
  setPicker(update: (p: "quick" | "overflow" | null) => "quick" | "overflow" | null): void;
  setDialog(d: DialogKind): void;
}

/** Runs an option chosen from the quick buttons or the overflow menu. */
function runOption(id: MessageOptionId, from: "quick" | "overflow", c: RunContext): void {
  const { message, props, live, setStatus } = c;
  const fail = (e: unknown) => {
    if (live.current) setStatus("");
    c.onError(e);
  };
  const done = (status: string) => () => live.current && setStatus(status);
  switch (id) {
    case "react":
      return c.setPicker((p) => (p ? null : from));
    case "reply":
      return ChatMessageEvents.ccReplyToMessage.next({ message, status: MessageStatus.success });
    case "replyInThread":
      return props.onThreadRepliesClick?.(message);
    case "translate":
      setStatus("Translating…");
      Chat.translateMessage(message.getId(), translationLanguage()).then((text) => {
        if (live.current) setStatus("");
        c.onTranslated(message.getId(), text);
      }, fail);
      return;
    case "copy":
      return void copyText(messageText(message)).then(done("Copied"), fail);
    case "edit":
      return c.onEdit(message);
    case "messagePrivately": {
      const sender = message.getSender();
      if (sender) ChatUIEvents.ccOpenChat.next({ user: sender });
      return;
    }
    case "markUnread":
      return void Chat.markAsUnread(message).then(done("Marked as unread"), fail);
    case "info":
    case "flag":
    case "delete":
      return c.setDialog(id);
  }
}

/** The options' status line ("Copied", "Translating…"); a finished status clears after a moment. */
function useOptionStatus() {
  const [status, setStatus] = useState("");
  const live = useLive();
  useEffect(() => {
    if (!status || status.endsWith("…")) return;
    const t = setTimeout(() => live.current && setStatus(""), 2500);
    return () => clearTimeout(t);
  }, [status, live]);
  return { status, setStatus, live };
}

/** The message's options menu (quick options + overflow), shown on hover and keyboard focus. */
export function MessageOptions(p: MessageOptionsProps) {
  const { message, isOutgoing, props, loggedInUser, onError } = p;
  const ai = useAIEnabled(!props.hideTranslateMessageOption);
  const [dialog, setDialog] = useState<DialogKind | null>(null);
  const [picker, setPicker] = useState<"quick" | "overflow" | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const { status, setStatus, live } = useOptionStatus();
  const rootRef = useRef<HTMLDivElement>(null);
  const reactRef = useRef<HTMLButtonElement>(null);
  const moreRef = useRef<HTMLButtonElement>(null);
  const pickerId = useId();

  const ids = availableOptions({ message, isOutgoing, props, loggedInUser, aiEnabled: ai === true });
  if (!ids.length) return null;
  const { quick, overflow } = splitOptions(ids, props.quickOptionsCount);
  const run = (id: MessageOptionId, from: "quick" | "overflow") => runOption(id, from, { ...p, live, setStatus, setPicker, setDialog });
  const react = (emoji: string) => {
    setPicker(null);
    const mine = message.getReactions().find((r) => r.getReaction() === emoji)?.getReactedByMe();
    (mine ? Chat.removeReaction : Chat.addReaction)(message.getId(), emoji).catch(onError);
  };
  const close = () => setDialog(null);
  const open = menuOpen || picker !== null || dialog !== null;
  return (
    <div ref={rootRef} className="chat-message-options" role="group" aria-label="Message options" data-open={open || undefined}>
      {quick.map((id) => (
        <button key={id} ref={id === "react" ? reactRef : undefined} type="button" className="chat-ui-icon-button" data-option={id} aria-label={optionLabels[id]}
          title={optionLabels[id]} {...(id === "react" ? { "aria-haspopup": "menu", "aria-expanded": picker === "quick", "aria-controls": picker === "quick" ? pickerId : undefined } : {})}
          onClick={() => run(id, "quick")}>
          {optionIcons[id]()}
        </button>
      ))}
      {overflow.length ? (
        <MenuButton
          label="More options"
          menuLabel="Message options"
          icon={<MoreIcon />}
          buttonRef={moreRef}
          className="chat-message-options__more"
          onOpenChange={setMenuOpen}
          items={overflow.map((id) => ({ id, label: optionLabels[id], icon: optionIcons[id]() }))}
          onSelect={(id) => run(id as MessageOptionId, "overflow")}
        />
      ) : null}
      {picker ? <EmojiPicker id={pickerId} returnFocus={picker === "quick" ? reactRef : moreRef} onPick={react} onClose={() => setPicker(null)} /> : null}
      <span className="chat-message-options__status" role="status">
        {status}
      </span>
      {dialog === "delete" ? <DeleteDialog message={message} anchor={rootRef} onClose={close} onError={onError} /> : null}
      {dialog === "info" ? (
        <InfoDialog message={message} anchor={rootRef} onClose={close} onError={onError} format={props.messageInfoDateTimeFormat} own={isOutgoing} showTraceIds={!!props.showTraceIds} />
      ) : null}
      {dialog === "flag" ? <FlagDialog message={message} anchor={rootRef} onClose={close} onError={onError} hideRemark={!!props.hideFlagRemarkField} /> : null}
    </div>
  );
}
