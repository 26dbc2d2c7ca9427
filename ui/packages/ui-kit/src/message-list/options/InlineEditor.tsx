// CONTRACT (see MessageOptions.tsx): editing a text message in place.
import type { Chat } from "@agentry/chat-sdk";

export interface InlineEditorProps {
  message: Chat.BaseMessage;
  /** Called after a save (with the edited message) or a cancel (undefined). */
  onDone(edited?: Chat.BaseMessage): void;
  onError(error: unknown): void;
}

export function InlineEditor(_: InlineEditorProps) {
  return null;
}
