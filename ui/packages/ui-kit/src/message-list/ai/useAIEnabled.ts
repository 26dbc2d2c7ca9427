// Whether the chat service's AI features are on (an assistant agent is chosen). One request
// serves every bubble and footer: the answer is shared for a while, then asked again.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useState } from "react";

const TTL_MS = 30_000;
let cached: { at: number; promise: Promise<boolean> } | undefined;

/** Chat.isAIEnabled(), shared by every caller for TTL_MS; false when the request fails. */
export function aiEnabled(now = Date.now()): Promise<boolean> {
  if (cached && now - cached.at < TTL_MS) return cached.promise;
  const promise = Chat.isAIEnabled().catch(() => {
    if (cached?.promise === promise) cached = undefined; // ask again next time
    return false;
  });
  cached = { at: now, promise };
  return promise;
}

/** Forgets the shared answer (tests; after changing the assistant). */
export function resetAIEnabledCache(): void {
  cached = undefined;
}

/** undefined while asking, then whether AI features are on. */
export function useAIEnabled(active = true): boolean | undefined {
  const [enabled, setEnabled] = useState<boolean | undefined>(undefined);
  useEffect(() => {
    if (!active) return;
    let live = true;
    void aiEnabled().then((v) => live && setEnabled(v));
    return () => {
      live = false;
    };
  }, [active]);
  return enabled;
}
