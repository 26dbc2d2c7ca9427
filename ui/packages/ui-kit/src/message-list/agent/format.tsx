// Text of agent answers, formatted like text bubbles: links and line breaks, built as React
// nodes (never HTML strings). props.textFormatters replace these defaults, as for text bubbles.
import { Fragment, type ReactNode } from "react";
import type { Chat } from "@agentry/chat-sdk";
import type { ChatTextFormatter } from "../../types";

const URL_RE = /\bhttps?:\/\/[^\s<>"]+[^\s<>".,:;!?'()[\]{}]/g;

/** Applies f to every string of the nodes, leaving elements as they are. */
function mapStrings(nodes: ReactNode[], f: (s: string, key: string) => ReactNode[]): ReactNode[] {
  return nodes.flatMap((n, i) => (typeof n === "string" ? f(n, String(i)) : [n]));
}

export const linkFormatter: ChatTextFormatter = {
  id: "links",
  format: (nodes) =>
    mapStrings(nodes, (s, key) => {
      const out: ReactNode[] = [];
      let last = 0;
      for (const m of s.matchAll(URL_RE)) {
        const at = m.index ?? 0;
        if (at > last) out.push(s.slice(last, at));
        out.push(
          <a key={`${key}-a${at}`} href={m[0]} target="_blank" rel="noopener noreferrer" className="chat-link">
            {m[0]}
          </a>,
        );
        last = at + m[0].length;
      }
      if (last < s.length) out.push(s.slice(last));
      return out;
    }),
};

export const lineBreakFormatter: ChatTextFormatter = {
  id: "line-breaks",
  format: (nodes) =>
    mapStrings(nodes, (s, key) => s.split("\n").flatMap((line, i) => (i === 0 ? [line] : [<br key={`${key}-br${i}`} />, line])).filter((x) => x !== "")),
};

export const defaultTextFormatters: readonly ChatTextFormatter[] = [linkFormatter, lineBreakFormatter];

/** The message text as nodes, through formatters (default: links, then line breaks). */
export function FormattedText({ text, message, formatters }: { text: string; message: Chat.BaseMessage; formatters?: readonly ChatTextFormatter[] | undefined }) {
  const nodes = (formatters ?? defaultTextFormatters).reduce<ReactNode[]>((acc, f) => f.format(acc, message), [text]);
  return (
    <>
      {nodes.map((n, i) => (
        <Fragment key={i}>{n}</Fragment>
      ))}
    </>
  );
}
