// What is being typed, per conversation, kept in this tab's sessionStorage: a session that ends
// (expired, revoked, deactivated) or a sign-in through the provider (a round trip away from the
// page) loses nothing; "Log out" clears it, so the next person at this tab starts empty.
import { useEffect, useState } from "react";

const prefix = "agentry.web.draft.";
const returnKey = "agentry.web.return";

function read(key: string): string {
  try {
    return sessionStorage.getItem(prefix + key) ?? "";
  } catch {
    return "";
  }
}

/** The composer's text for key (a conversation, a thread), kept as it changes. */
export function useDraft(key: string): [string, (update: string | ((cur: string) => string)) => void] {
  const [draft, setDraft] = useState(() => ({ key, text: read(key) }));
  const text = draft.key === key ? draft.text : read(key);
  useEffect(() => {
    try {
      if (draft.text === "") sessionStorage.removeItem(prefix + draft.key);
      else sessionStorage.setItem(prefix + draft.key, draft.text);
    } catch {
      // storage off: the draft lives as long as the component
    }
  }, [draft]);
  const set = (update: string | ((cur: string) => string)) =>
    setDraft((d) => {
      const cur = d.key === key ? d.text : read(key);
      return { key, text: typeof update === "function" ? update(cur) : update };
    });
  return [text, set];
}

/** Forgets every draft and where to return (an explicit sign-out). */
export function clearDrafts(): void {
  try {
    for (const k of Object.keys(sessionStorage)) if (k.startsWith(prefix) || k === returnKey) sessionStorage.removeItem(k);
  } catch {
    // nothing stored
  }
}

/** Remembers the page to come back to after signing in again. */
export function rememberReturn(path: string): void {
  try {
    if (path !== "/") sessionStorage.setItem(returnKey, path);
  } catch {
    // storage off: back to /
  }
}

/** The page to come back to, once (undefined when none). */
export function takeReturn(): string | undefined {
  try {
    const path = sessionStorage.getItem(returnKey) ?? undefined;
    sessionStorage.removeItem(returnKey);
    return path?.startsWith("/") && !path.startsWith("//") ? path : undefined;
  } catch {
    return undefined;
  }
}
