/** Which Session a ChatClient drives, without putting it on the client's public type. */
import { ChatException, SDK_ERROR } from "./exception";
import type { Session } from "./session";

const sessions = new WeakMap<object, Session>();
let defaultClient: object | undefined;

export function register(client: object, s: Session): void {
  sessions.set(client, s);
}

/** Makes client the one request builders use when given none (the Chat namespace's). */
export function setDefaultClient(client: object): void {
  defaultClient = client;
}

/** The session of client, or of the default client. */
export function sessionOf(client?: object): Session {
  const c = client ?? defaultClient;
  const s = c ? sessions.get(c) : undefined;
  if (!s) throw new ChatException(SDK_ERROR.NOT_INITIALIZED, "no chat client: use the Chat namespace or pass a ChatClient");
  return s;
}
