import { Chat } from "@agentry/chat-sdk";

/** What a quote shows of a message: its text, a caption or file name, or what it is. */
export function quoteText(m: Chat.BaseMessage): string {
  if (m.getDeletedAt()) return "This message was deleted";
  if (m instanceof Chat.TextMessage || m instanceof Chat.AgenticMessage) return m.getText();
  if (m instanceof Chat.MediaMessage) return m.getCaption() || m.getAttachment()?.getName() || `A ${m.getType()}`;
  if (m instanceof Chat.CustomMessage) return m.getConversationText() || m.getType();
  return "A message";
}

export interface QuotedMessageProps {
  quoted: Chat.BaseMessage;
  me: string;
  /** Shows the quoted message in the list (absent: the quote is not a button). */
  onOpen?: ((id: number) => void) | undefined;
}

/** The quoted message above a quote reply's content (.chat-message-bubble__quote): who said
 * what, at most three lines; a button that shows the quoted message in the list. */
export function QuotedMessage({ quoted, me, onOpen }: QuotedMessageProps) {
  const who = quoted.getSender()?.getUid() === me ? "You" : (quoted.getSender()?.getName() || quoted.getSender()?.getUid() || "Someone");
  const text = quoteText(quoted);
  // The name is the visible text with a hidden "Quoting" and separator (a button's label must
  // contain what it shows).
  const body = (
    <>
      <span className="chat-visually-hidden">Quoting </span>
      <span className="chat-message-bubble__quote-sender">{who}</span>
      <span className="chat-visually-hidden">: </span>
      <span className={`chat-message-bubble__quote-text${quoted.getDeletedAt() ? " chat-message-bubble__quote-text--deleted" : ""}`}>{text}</span>
    </>
  );
  return onOpen ? (
    <button type="button" className="chat-message-bubble__quote" onClick={() => onOpen(quoted.getId())} title="Show the quoted message">
      {body}
    </button>
  ) : (
    <div className="chat-message-bubble__quote">{body}</div>
  );
}
