import { useState } from "react";

export interface AvatarProps {
  name: string;
  image?: string | undefined;
  /** Extra class on the root, e.g. for a status badge. */
  className?: string;
}

/** initials are up to two letters of the name's words, for an avatar without an image. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0]!, words[words.length - 1]!] : words;
  return letters.map((w) => Array.from(w)[0]!.toUpperCase()).join("").slice(0, 2) || "?";
}

/**
 * Avatar shows the image, or the name's initials when there is none or it fails to load. It is
 * decorative (aria-hidden): the name is always next to it.
 */
export function Avatar({ name, image, className }: AvatarProps) {
  const [broken, setBroken] = useState(false);
  const cls = "chat-avatar" + (className ? " " + className : "");
  if (image && !broken) {
    return (
      <span className={cls} aria-hidden="true">
        <img className="chat-avatar__image" src={image} alt="" onError={() => setBroken(true)} />
      </span>
    );
  }
  return (
    <span className={cls} aria-hidden="true">
      <span className="chat-avatar__text">{initials(name)}</span>
    </span>
  );
}
