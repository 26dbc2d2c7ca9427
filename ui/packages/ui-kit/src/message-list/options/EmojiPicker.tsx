// A small emoji picker: a horizontal menu of common reactions (arrow keys move, Enter picks,
// Escape closes and focus returns to the button that opened it).
import { useState, type RefObject } from "react";
import { EmojiGrid } from "./EmojiGrid";
import { MenuList } from "./Menu";

const MORE = "more";

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

/** The quick reactions, and "More reactions" at the end opening the full picker in its place. */
export function EmojiPicker({ onPick, onClose, returnFocus, id }: EmojiPickerProps) {
  const [full, setFull] = useState(false);
  if (full) return <EmojiGrid {...(id ? { id } : {})} onPick={onPick} onClose={onClose} returnFocus={returnFocus} />;
  return (
    <MenuList
      {...(id ? { id } : {})}
      label="Add a reaction"
      orientation="horizontal"
      className="chat-emoji-picker"
      returnFocus={returnFocus}
      onClose={onClose}
      onSelect={(picked) => (picked === MORE ? setFull(true) : onPick(picked))}
      items={[
        ...quickReactions.map(([emoji, name]) => ({
          id: emoji,
          label: `React with ${name}`,
          content: (
            <span className="chat-emoji-picker__emoji" aria-hidden="true">
              {emoji}
            </span>
          ),
        })),
        {
          id: MORE,
          label: "More reactions",
          content: (
            <span className="chat-emoji-picker__emoji chat-emoji-picker__more" aria-hidden="true">
              +
            </span>
          ),
        },
      ]}
    />
  );
}
