import { useState } from "react";

export interface AvatarProps {
  name: string;
  /** An image URL, or an emoji (any text that is not a URL), shown as it is. */
  image?: string | undefined;
  /** Extra class on the root (the kit styles the avatar inside its components only). */
  className?: string;
  /** A presence dot (.chat-avatar__presence--online / --offline); none when undefined. */
  online?: boolean | undefined;
}

/** initials are up to two letters of the name's words, for an avatar without an image. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0]!, words[words.length - 1]!] : words;
  return letters.map((w) => Array.from(w)[0]!.toUpperCase()).join("").slice(0, 2) || "?";
}

/**
 * Avatar shows the image, the emoji, or the name's initials when there is neither or the image
 * fails to load. It is decorative (aria-hidden): the name is always next to it.
 */
export function Avatar({ name, image, className, online }: AvatarProps) {
  const [broken, setBroken] = useState(false);
  const emoji = image && !/^(https?:|data:|blob:|\/)/.test(image) ? image : undefined;
  return (
    <span className={"chat-avatar" + (className ? " " + className : "")} aria-hidden="true">
      {image && !emoji && !broken ? (
        <img className="chat-avatar__image" src={image} alt="" onError={() => setBroken(true)} />
      ) : (
        <span className="chat-avatar__text">{emoji ?? initials(name)}</span>
      )}
      {online !== undefined ? <span className={`chat-avatar__presence chat-avatar__presence--${online ? "online" : "offline"}`} /> : null}
    </span>
  );
}
