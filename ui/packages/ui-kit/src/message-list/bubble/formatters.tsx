/**
 * The default text formatters: links, then line breaks. Formatters only split strings into
 * nodes (text stays text, React escapes it), so message text can never inject markup.
 */
import { Fragment, type ReactNode } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { ChatTextFormatter } from "../../types";

// http(s) URLs and bare www. hosts; a trailing punctuation mark ends the sentence, not the URL.
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"]*[^\s<>".,;:!?)\]}'’]/gi;

/** mapStrings applies f to the string nodes and keeps the others. */
function mapStrings(input: ReactNode[], f: (s: string) => ReactNode[]): ReactNode[] {
  return input.flatMap((n) => (typeof n === "string" ? f(n) : [n]));
}

/** Turns http(s) and www. URLs into links that open in a new tab (noopener). */
export const linkFormatter: ChatTextFormatter = {
  id: "links",
  format(input) {
    return mapStrings(input, (s) => {
      const out: ReactNode[] = [];
      let last = 0;
      for (const m of s.matchAll(URL_RE)) {
        const at = m.index;
        if (at > last) out.push(s.slice(last, at));
        const text = m[0];
        const href = /^https?:\/\//i.test(text) ? text : `https://${text}`;
        out.push(
          <a className="chat-text-bubble__link" href={href} target="_blank" rel="noopener noreferrer nofollow">
            {text}
          </a>,
        );
        last = at + text.length;
      }
      if (last < s.length) out.push(s.slice(last));
      return out;
    });
  },
};

/** Turns newlines into <br/>. */
export const lineBreakFormatter: ChatTextFormatter = {
  id: "line-breaks",
  format(input) {
    return mapStrings(input, (s) => {
      const parts = s.split(/\r\n|\n|\r/);
      return parts.flatMap((p, i) => (i === 0 ? [p] : [<br />, p])).filter((p) => p !== "");
    });
  },
};

// "@uid" (after a start or a non-word character, as the service reads mentions) and the SDK's
// "<@uid:uid>".
const MENTION_RE = /<@uid:([A-Za-z0-9_-]{1,64})>|(^|[^A-Za-z0-9_<-])@([A-Za-z0-9_-]{1,64})/g;

/** Highlights mentions (@uid, <@uid:uid>) as .chat-text-bubble__mention with data-uid. */
export const mentionFormatter: ChatTextFormatter = {
  id: "mentions",
  format(input) {
    return mapStrings(input, (s) => {
      const out: ReactNode[] = [];
      let last = 0;
      for (const m of s.matchAll(MENTION_RE)) {
        const lead = m[2] ?? "";
        const uid = m[1] ?? m[3] ?? "";
        const at = m.index + lead.length;
        if (at > last) out.push(s.slice(last, at));
        out.push(
          <span className="chat-text-bubble__mention" data-uid={uid}>
            @{uid}
          </span>,
        );
        last = m.index + m[0].length;
      }
      if (last < s.length) out.push(s.slice(last));
      return out;
    });
  },
};

/** What textFormatters defaults to. Pass your own list to replace it (include these to keep them). */
export const defaultTextFormatters: ChatTextFormatter[] = [linkFormatter, mentionFormatter, lineBreakFormatter];

/** formatText runs the formatters in order and returns keyed nodes for rendering. */
export function formatText(text: string, message: Chat.BaseMessage, formatters: readonly ChatTextFormatter[]): ReactNode[] {
  let nodes: ReactNode[] = [text];
  for (const f of formatters) nodes = f.format(nodes, message);
  // Formatters return plain arrays of unkeyed nodes; a keyed fragment per position renders them
  // as a list without key warnings (and without relying on formatters' own keys being unique).
  return nodes
    .filter((n) => n !== null && n !== undefined && n !== false && n !== "")
    .map((n, i) => <Fragment key={i}>{n}</Fragment>);
}
