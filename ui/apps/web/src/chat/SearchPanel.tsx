// Message search beside the conversation: everywhere, or in the open conversation. A result
// opens its conversation at the message (or its thread).
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { errorText } from "../session";
import type { Target } from "./Conversation";

export interface SearchPanelProps {
  me: Chat.User;
  /** The open conversation, to search in. */
  target: Target | undefined;
  initial: string;
  onOpen(m: Chat.BaseMessage): void;
  onClose(): void;
}

const textOf = (m: Chat.BaseMessage): string =>
  m instanceof Chat.TextMessage || m instanceof Chat.AgenticMessage ? m.getText() : m instanceof Chat.MediaMessage ? m.getCaption() : m instanceof Chat.CustomMessage ? m.getConversationText() : "";

/** The text with the keyword marked (case-insensitive), as nodes: never HTML. */
function marked(text: string, keyword: string) {
  const k = keyword.toLowerCase();
  const out: ReactNode[] = [];
  let at = 0;
  const lower = text.toLowerCase();
  for (let i = lower.indexOf(k); k && i >= 0; i = lower.indexOf(k, i + k.length)) {
    out.push(text.slice(at, i), <mark key={i}>{text.slice(i, i + k.length)}</mark>);
    at = i + k.length;
  }
  out.push(text.slice(at));
  return out;
}

/** Runs searches (everywhere, or in the open conversation) and pages through their results, newest first. */
function useSearch(target: Target | undefined) {
  const [results, setResults] = useState<Chat.BaseMessage[]>();
  const [searched, setSearched] = useState("");
  const [more, setMore] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const request = useRef<Chat.MessagesRequest | undefined>(undefined);
  const page = async (first: boolean, then?: () => void) => {
    setBusy(true);
    try {
      const got = [...(await request.current!.fetchPrevious())].reverse();
      setResults((r) => (first ? got : [...(r ?? []), ...got]));
      setMore(got.length === 30);
      then?.();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const run = async (keyword: string, where: "all" | "here") => {
    const k = keyword.trim();
    if (k.length < 2) return setError("Type at least 2 characters");
    setError("");
    const b = new Chat.MessagesRequestBuilder().setSearchKeyword(k).setLimit(30);
    if (where === "here" && target) {
      if (target.kind === "group") b.setGUID(target.group.getGuid());
      else b.setUID(target.user.getUid());
    }
    try {
      request.current = b.build();
    } catch (e) {
      return setError(errorText(e));
    }
    await page(true, () => setSearched(k));
  };
  return { results, setResults, searched, more, error, busy, run, loadMore: () => (request.current ? page(false) : Promise.resolve()) };
}

/** Where a result was said: a group's name (looked up once per group) or the other person's. */
function useWhereOf(me: Chat.User, results: Chat.BaseMessage[] | undefined, refresh: () => void) {
  const names = useRef(new Map<string, string>());
  useEffect(() => {
    const guids = [...new Set((results ?? []).filter((m) => m.getReceiverType() === Chat.RECEIVER_TYPE.GROUP).map((m) => m.getReceiverId()))].filter((g) => !names.current.has(`g:${g}`));
    if (!guids.length) return;
    let live = true;
    void Promise.all(guids.map((g) => Chat.getGroup(g).then((x) => names.current.set(`g:${g}`, x.getName() || g), () => undefined))).then(() => live && refresh());
    return () => {
      live = false;
    };
  }, [results]); // eslint-disable-line react-hooks/exhaustive-deps
  return (m: Chat.BaseMessage): string => {
    if (m.getReceiverType() === Chat.RECEIVER_TYPE.GROUP) return names.current.get(`g:${m.getReceiverId()}`) ?? m.getReceiverId();
    const other = m.getSender()?.getUid() === me.getUid() ? m.getReceiverId() : m.getSender()?.getUid() ?? "";
    return m.getSender()?.getUid() === me.getUid() ? `You → ${other}` : `${m.getSender()?.getName() || other} → you`;
  };
}

export function SearchPanel({ me, target, initial, onOpen, onClose }: SearchPanelProps) {
  const [query, setQuery] = useState(initial);
  const [scope, setScope] = useState<"all" | "here">("all");
  const { results, setResults, searched, more, error, busy, run, loadMore } = useSearch(target);
  const whereOf = useWhereOf(me, results, () => setResults((r) => (r ? [...r] : r)));
  const field = useRef<HTMLInputElement>(null);
  const ids = { field: useId(), status: useId() };
  useEffect(() => {
    field.current?.focus();
    if (initial.trim().length >= 2) void run(initial, "all");
    // The first search only: later ones run from the form.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(query, scope);
  };
  const found = results?.length ? `${results.length}${more ? "+" : ""} message${results.length === 1 ? "" : "s"} with “${searched}”` : `No messages with “${searched}”`;
  return (
    <aside className="agentry-web__thread agentry-web__search" aria-label="Search">
      <header className="agentry-web__thread-head">
        <h2 className="agentry-web__section-title agentry-web__thread-title">Search messages</h2>
        <button type="button" className="agentry-web__button agentry-web__button--quiet" onClick={onClose}>
          Close search
        </button>
      </header>
      <form className="agentry-web__search-form" role="search" aria-label="Search again" onSubmit={submit}>
        <label htmlFor={ids.field} className="agentry-web__sr-only">Search messages</label>
        <input ref={field} id={ids.field} type="search" className="agentry-web__input" value={query} placeholder="Search messages"
          onChange={(e) => setQuery(e.target.value)} aria-describedby={ids.status} />
        {target ? (
          <select className="agentry-web__input agentry-web__input--small" aria-label="Where" value={scope}
            onChange={(e) => {
              const v = e.target.value as "all" | "here";
              setScope(v);
              if (query.trim().length >= 2) void run(query, v);
            }}>
            <option value="all">Everywhere</option>
            <option value="here">In this conversation</option>
          </select>
        ) : null}
        <button type="submit" className="agentry-web__button" disabled={busy}>Search</button>
      </form>
      <div className="agentry-web__details-body">
        <p id={ids.status} className="agentry-web__muted" role="status">
          {busy ? "Searching…" : error ? "" : results ? found : ""}
        </p>
        {error ? <p className="agentry-web__error" role="alert">{error}</p> : null}
        {results?.length ? (
          <ul className="agentry-web__results" aria-label="Results">
            {results.map((m) => (
              <li key={m.getId()}>
                <button type="button" className="agentry-web__result" onClick={() => onOpen(m)}>
                  <span className="agentry-web__result-head">
                    <strong>{m.getSender()?.getUid() === me.getUid() ? "You" : m.getSender()?.getName() || m.getSender()?.getUid()}</strong>
                    <span className="agentry-web__muted"> · {whereOf(m)} · {new Date(m.getSentAt() * 1000).toLocaleString([], { dateStyle: "medium", timeStyle: "short" })}</span>
                  </span>
                  <span className="agentry-web__result-text">{marked(textOf(m), searched)}</span>
                </button>
              </li>
            ))}
          </ul>
        ) : null}
        {more ? (
          <button type="button" className="agentry-web__button agentry-web__button--secondary" disabled={busy} onClick={() => void loadMore()}>
            More results
          </button>
        ) : null}
      </div>
    </aside>
  );
}
