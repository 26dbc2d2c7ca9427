/**
 * A row's actions (the `options` prop): one toolbar, placed over the right end of the row the
 * pointer is on or the keyboard focus is on. It sits next to the listbox, not inside an option
 * (an option may hold no focusable element), so Tab from a focused row reaches its actions and
 * Shift+Tab (or Escape) goes back to the row.
 */
import { useLayoutEffect, useState, type KeyboardEvent } from "react";
import type { Chat } from "@agentry/chat-sdk";
import { MoreIcon } from "../base/Icons";
import type { ChatOption } from "../types";

export interface OptionsBarProps {
  group: Chat.Group;
  options: ChatOption[];
  /** The row's option element (the bar takes its vertical position and height). */
  anchor: HTMLElement;
  /** Escape: back to the row. */
  onEscape: () => void;
}

export function OptionsBar({ group, options, anchor, onEscape }: OptionsBarProps) {
  const [box, setBox] = useState<{ top: number; height: number } | null>(null);
  // After every render: a row inserted above moves the anchor without resizing it. The
  // anchor's offsetParent is the scroller (position: relative), as is the bar's.
  useLayoutEffect(() => {
    const top = anchor.offsetTop;
    const height = anchor.offsetHeight;
    if (!box || box.top !== top || box.height !== height) setBox({ top, height });
  });
  if (options.length === 0) return null;
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      onEscape();
    }
  };
  return (
    <div
      className="chat-groups__options"
      role="toolbar"
      aria-label={`Actions for ${group.getName()}`}
      style={box ? { top: box.top, height: box.height } : { visibility: "hidden" }}
      onKeyDown={onKeyDown}
    >
      {options.map((o, i) => (
        <button
          key={o.id ?? `${i}:${o.title ?? ""}`}
          type="button"
          className="chat-groups__option"
          data-option-id={o.id}
          aria-label={o.title ?? o.id ?? "Action"}
          title={o.title}
          onClick={(e) => {
            e.stopPropagation();
            o.onClick?.();
          }}
        >
          {o.iconURL ? (
            <span
              className="chat-groups__option-icon"
              aria-hidden="true"
              style={{ maskImage: `url("${o.iconURL}")`, WebkitMaskImage: `url("${o.iconURL}")` }}
            />
          ) : o.title ? (
            <span className="chat-groups__option-title">{o.title}</span>
          ) : (
            <MoreIcon className="chat-groups__option-fallback" />
          )}
        </button>
      ))}
    </div>
  );
}
