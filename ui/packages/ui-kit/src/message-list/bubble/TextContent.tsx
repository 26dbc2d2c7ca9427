import { useId, useMemo, useState } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { ChatTextFormatter } from "../../types";
import { formatText } from "./formatters";

export interface TextContentProps {
  message: Chat.BaseMessage;
  text: string;
  formatters: readonly ChatTextFormatter[];
}

/** A message this long (characters or lines) shows its first lines and "Show more". */
export const LONG_CHARS = 700;
export const LONG_LINES = 12;

export const isLong = (text: string): boolean => text.length > LONG_CHARS || text.split("\n").length > LONG_LINES;

/** A text message's content (.chat-text-bubble): the text through the formatters, in order;
 * a long one collapsed to its first lines with "Show more". */
export function TextContent({ message, text, formatters }: TextContentProps) {
  const nodes = useMemo(() => formatText(text, message, formatters), [text, message, formatters]);
  const long = isLong(text);
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <div className="chat-text-bubble">
      <p id={id} className={`chat-text-bubble__text${long && !open ? " chat-text-bubble__text--collapsed" : ""}`}>{nodes}</p>
      {long ? (
        <button type="button" className="chat-text-bubble__more" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
          {open ? "Show less" : "Show more"}
        </button>
      ) : null}
    </div>
  );
}
