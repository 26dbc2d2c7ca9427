// The full reaction picker: a search field over named groups of emoji buttons. Arrow keys move
// between emoji, Enter picks, Escape closes and focus returns to the button that opened it.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from "react";
import { emojiGroups } from "./emojiData";
import { useCloseOnOutsideClick } from "./Menu";

export interface EmojiGridProps {
  onPick(emoji: string): void;
  onClose(): void;
  returnFocus: RefObject<HTMLElement | null>;
  id?: string;
}

const COLUMNS = 8;

export function EmojiGrid({ onPick, onClose, returnFocus, id }: EmojiGridProps) {
  const [query, setQuery] = useState("");
  const ref = useRef<HTMLDivElement>(null);
  const search = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const close = () => {
    returnFocus.current?.focus();
    onClose();
  };
  useEffect(() => search.current?.focus(), []);
  useCloseOnOutsideClick(ref, returnFocus, close);

  const q = query.trim().toLowerCase();
  const groups = useMemo(
    () => emojiGroups.map((g) => ({ ...g, emojis: g.emojis.filter(([, name]) => !q || name.includes(q)) })).filter((g) => g.emojis.length),
    [q],
  );

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      close();
      return;
    }
    const buttons = Array.from(ref.current?.querySelectorAll<HTMLButtonElement>(".chat-emoji-grid__emoji") ?? []);
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: COLUMNS, ArrowUp: -COLUMNS }[e.key];
    if (e.key === "ArrowDown" && i < 0 && buttons.length) {
      e.preventDefault();
      buttons[0]!.focus();
      return;
    }
    if (step === undefined || i < 0) return;
    e.preventDefault();
    const next = i + step;
    if (next < 0) search.current?.focus();
    else buttons[Math.min(next, buttons.length - 1)]?.focus();
  };

  return (
    <div ref={ref} id={id} className="chat-emoji-grid" role="dialog" aria-labelledby={titleId} onKeyDown={onKeyDown}>
      <h2 id={titleId} className="chat-visually-hidden">Pick a reaction</h2>
      <input ref={search} type="search" className="chat-emoji-grid__search" placeholder="Search emoji" aria-label="Search emoji" value={query}
        onChange={(e) => setQuery(e.target.value)} />
      <div className="chat-emoji-grid__groups">
        {groups.map((g) => (
          <section key={g.name} className="chat-emoji-grid__group" aria-label={g.name}>
            <h3 className="chat-emoji-grid__group-name" aria-hidden="true">{g.name}</h3>
            <div className="chat-emoji-grid__emojis">
              {g.emojis.map(([emoji, name]) => (
                <button key={emoji} type="button" className="chat-emoji-grid__emoji" aria-label={`React with ${name}`} title={name} onClick={() => onPick(emoji)}>
                  <span aria-hidden="true">{emoji}</span>
                </button>
              ))}
            </div>
          </section>
        ))}
        {groups.length ? null : <p className="chat-emoji-grid__empty">No emoji named “{query.trim()}”</p>}
      </div>
    </div>
  );
}
