// CONTRACT between the list core (ChatMessageList, bubble) and the message features (options,
// reactions, editing, translation, agent, AI). The core renders these; the features own their
// bodies. Keep the exported names and props stable.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useId, useRef, useState } from "react";
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

/** The message's options menu (quick options + overflow), shown on hover and keyboard focus. */
export function MessageOptions({ message, isOutgoing, props, loggedInUser, onTranslated, onEdit, onError }: MessageOptionsProps) {
  const ai = useAIEnabled(!props.hideTranslateMessageOption);
  const [dialog, setDialog] = useState<DialogKind | null>(null);
  const [picker, setPicker] = useState<"quick" | "overflow" | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const [status, setStatus] = useState("");
  const rootRef = useRef<HTMLDivElement>(null);
  const reactRef = useRef<HTMLButtonElement>(null);
  const moreRef = useRef<HTMLButtonElement>(null);
  const pickerId = useId();
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);
  useEffect(() => {
    if (!status || status.endsWith("…")) return;
    const t = setTimeout(() => live.current && setStatus(""), 2500);
    return () => clearTimeout(t);
  }, [status]);

  const ids = availableOptions({ message, isOutgoing, props, loggedInUser, aiEnabled: ai === true });
  if (!ids.length) return null;
  const { quick, overflow } = splitOptions(ids, props.quickOptionsCount);

  const fail = (e: unknown) => {
    if (live.current) setStatus("");
    onError(e);
  };

  const run = (id: MessageOptionId, from: "quick" | "overflow") => {
    switch (id) {
      case "react":
        setPicker((p) => (p ? null : from));
        return;
      case "reply":
        ChatMessageEvents.ccReplyToMessage.next({ message, status: MessageStatus.success });
        return;
      case "replyInThread":
        props.onThreadRepliesClick?.(message);
        return;
      case "translate":
        setStatus("Translating…");
        Chat.translateMessage(message.getId(), translationLanguage()).then((text) => {
          if (live.current) setStatus("");
          onTranslated(message.getId(), text);
        }, fail);
        return;
      case "copy":
        copyText(messageText(message)).then(() => live.current && setStatus("Copied"), fail);
        return;
      case "edit":
        onEdit(message);
        return;
      case "messagePrivately": {
        const sender = message.getSender();
        if (sender) ChatUIEvents.ccOpenChat.next({ user: sender });
        return;
      }
      case "markUnread":
        Chat.markAsUnread(message).then(() => live.current && setStatus("Marked as unread"), fail);
        return;
      case "info":
      case "flag":
      case "delete":
        setDialog(id);
        return;
    }
  };

  const react = (emoji: string) => {
    setPicker(null);
    const mine = message.getReactions().find((r) => r.getReaction() === emoji)?.getReactedByMe();
    (mine ? Chat.removeReaction : Chat.addReaction)(message.getId(), emoji).catch(onError);
  };

  const open = menuOpen || picker !== null || dialog !== null;
  return (
    <div ref={rootRef} className="chat-message-options" role="group" aria-label="Message options" data-open={open || undefined}>
      {quick.map((id) =>
        id === "react" ? (
          <button
            key={id}
            ref={reactRef}
            type="button"
            className="chat-ui-icon-button"
            data-option={id}
            aria-label={optionLabels[id]}
            title={optionLabels[id]}
            aria-haspopup="menu"
            aria-expanded={picker === "quick"}
            aria-controls={picker === "quick" ? pickerId : undefined}
            onClick={() => run(id, "quick")}
          >
            {optionIcons[id]()}
          </button>
        ) : (
          <button key={id} type="button" className="chat-ui-icon-button" data-option={id} aria-label={optionLabels[id]} title={optionLabels[id]} onClick={() => run(id, "quick")}>
            {optionIcons[id]()}
          </button>
        ),
      )}
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
      {dialog === "delete" ? <DeleteDialog message={message} anchor={rootRef} onClose={() => setDialog(null)} onError={onError} /> : null}
      {dialog === "info" ? (
        <InfoDialog message={message} anchor={rootRef} onClose={() => setDialog(null)} onError={onError} format={props.messageInfoDateTimeFormat}
          own={isOutgoing} showTraceIds={!!props.showTraceIds} />
      ) : null}
      {dialog === "flag" ? (
        <FlagDialog message={message} anchor={rootRef} onClose={() => setDialog(null)} onError={onError} hideRemark={!!props.hideFlagRemarkField} />
      ) : null}
    </div>
  );
}
