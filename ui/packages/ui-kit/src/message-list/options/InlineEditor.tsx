// CONTRACT (see MessageOptions.tsx): editing a text message in place.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useId, useRef, useState } from "react";
import { useLive } from "../../base/useLive";
import { ChatMessageEvents, MessageStatus } from "../../events";
import { messageText } from "./optionList";

export interface InlineEditorProps {
  message: Chat.BaseMessage;
  /** Called after a save (with the edited message) or a cancel (undefined). */
  onDone(edited?: Chat.BaseMessage): void;
  onError(error: unknown): void;
}

/**
 * A textarea with the message's text: Enter saves (Chat.editMessage, then
 * ChatMessageEvents.ccMessageEdited), Shift+Enter adds a line, Escape cancels. Saving an
 * unchanged text just closes; an empty text is not saved.
 */
export function InlineEditor({ message, onDone, onError }: InlineEditorProps) {
  const original = messageText(message);
  const [text, setText] = useState(original);
  const { busy, error, setError, save } = useSave(message, onDone, onError);
  const ref = useRef<HTMLTextAreaElement>(null);
  const hintId = useId();
  useEffect(() => {
    const ta = ref.current;
    if (ta) {
      ta.focus();
      ta.setSelectionRange(ta.value.length, ta.value.length);
    }
  }, []);
  return (
    <div className="chat-inline-editor">
      <textarea
        ref={ref}
        className="chat-inline-editor__input"
        aria-label="Edit message"
        aria-describedby={hintId}
        aria-invalid={error ? true : undefined}
        rows={Math.min(8, Math.max(2, text.split("\n").length))}
        value={text}
        disabled={busy}
        onChange={(e) => {
          setText(e.target.value);
          if (error) setError("");
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void save(text, original);
          } else if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            onDone();
          }
        }}
      />
      <div className="chat-inline-editor__bar">
        <span id={hintId} className="chat-inline-editor__hint">
          Enter to save, Shift+Enter for a new line, Escape to cancel
        </span>
        <button type="button" className="chat-ui-button" onClick={() => onDone()}>
          Cancel
        </button>
        <button type="button" className="chat-ui-button chat-ui-button--primary" disabled={busy} onClick={() => void save(text, original)}>
          Save
        </button>
      </div>
      {error ? <p role="alert" className="chat-inline-editor__error">{error}</p> : null}
    </div>
  );
}

/** Saving the edit: Chat.editMessage, then ChatMessageEvents.ccMessageEdited. */
function useSave(message: Chat.BaseMessage, onDone: InlineEditorProps["onDone"], onError: InlineEditorProps["onError"]) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const live = useLive();
  const save = async (text: string, original: string) => {
    if (busy) return;
    if (!text.trim()) return setError("A message cannot be empty.");
    if (text === original) return onDone();
    const m = new Chat.TextMessage(message.getReceiverId(), text, message.getReceiverType());
    m.setId(message.getId());
    setBusy(true);
    setError("");
    try {
      const edited = await Chat.editMessage(m);
      ChatMessageEvents.ccMessageEdited.next({ message: edited, status: MessageStatus.success });
      if (live.current) setBusy(false);
      onDone(edited);
    } catch (e) {
      if (live.current) {
        setBusy(false);
        setError((e as { message?: string } | null)?.message || "The message could not be saved.");
      }
      onError(e);
    }
  };
  return { busy, error, setError, save };
}
