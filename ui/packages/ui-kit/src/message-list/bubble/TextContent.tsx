import { useMemo } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { ChatTextFormatter } from "../../types";
import { formatText } from "./formatters";

export interface TextContentProps {
  message: Chat.BaseMessage;
  text: string;
  formatters: readonly ChatTextFormatter[];
}

/** A text message's content (.chat-text-bubble): the text through the formatters, in order. */
export function TextContent({ message, text, formatters }: TextContentProps) {
  const nodes = useMemo(() => formatText(text, message, formatters), [text, message, formatters]);
  return (
    <div className="chat-text-bubble">
      <p className="chat-text-bubble__text">{nodes}</p>
    </div>
  );
}
