// A small emoji picker: a horizontal menu of common reactions (arrow keys move, Enter picks,
// Escape closes and focus returns to the button that opened it).
import type { RefObject } from "react";
import { MenuList } from "./Menu";

/** The reactions offered, with the names screen readers announce. */
export const quickReactions: readonly (readonly [emoji: string, name: string])[] = [
  ["👍", "thumbs up"],
  ["❤️", "red heart"],
  ["😂", "face with tears of joy"],
  ["😮", "face with open mouth"],
  ["😢", "crying face"],
  ["🙏", "folded hands"],
  ["🎉", "party popper"],
  ["🔥", "fire"],
];

export interface EmojiPickerProps {
  onPick(emoji: string): void;
  onClose(): void;
  returnFocus: RefObject<HTMLElement | null>;
  id?: string;
}

export function EmojiPicker({ onPick, onClose, returnFocus, id }: EmojiPickerProps) {
  return (
    <MenuList
      {...(id ? { id } : {})}
      label="Add a reaction"
      orientation="horizontal"
      className="chat-emoji-picker"
      returnFocus={returnFocus}
      onClose={onClose}
      onSelect={onPick}
      items={quickReactions.map(([emoji, name]) => ({
        id: emoji,
        label: `React with ${name}`,
        content: (
          <span className="chat-emoji-picker__emoji" aria-hidden="true">
            {emoji}
          </span>
        ),
      }))}
    />
  );
}
