import { useCallback, useEffect, useState } from "react";
import { Chat } from "@agentry/chat-sdk";

export interface LoggedInUser {
  /** The SDK's logged-in user, once known. */
  user: Chat.User | undefined;
  /** Why there is none: ERR_NOT_LOGGED_IN, or what asking failed with. */
  error: Chat.ChatException | undefined;
  /** Asks the SDK again. */
  retry(): void;
}

/**
 * The current user, the one way the kit's components learn it: Chat.getLoggedinUser() on mount
 * and on retry(). Failures go to report (the component's onError) as they come.
 */
export function useLoggedInUser(report: (err: unknown) => Chat.ChatException): LoggedInUser {
  const [user, setUser] = useState<Chat.User>();
  const [error, setError] = useState<Chat.ChatException>();
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    Chat.getLoggedinUser().then(
      (u) => {
        if (!live) return;
        if (u) {
          setUser(u);
          setError(undefined);
        } else setError(report(new Chat.ChatException("ERR_NOT_LOGGED_IN", "no user is logged in")));
      },
      (err: unknown) => live && setError(report(err)),
    );
    return () => {
      live = false;
    };
  }, [attempt, report]);
  return { user, error, retry: useCallback(() => setAttempt((n) => n + 1), []) };
}

/** An onError that gets every failure as a ChatException (null or absent: nobody is told); it
 * returns the exception. A throwing onError is logged, not rethrown. */
export function reporter(onError: () => ((e: Chat.ChatException) => void) | null | undefined, who: string) {
  return (err: unknown): Chat.ChatException => {
    const e = Chat.ChatException.from(err);
    const cb = onError();
    if (typeof cb === "function") {
      try {
        cb(e);
      } catch (cbErr) {
        console.error(`${who}: onError failed`, cbErr);
      }
    }
    return e;
  };
}
