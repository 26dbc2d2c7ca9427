// The session: the SDK logs in (Auth Key or token) and holds the token; the app remembers it
// so a reload logs in again.
import { Chat } from "@agentry/chat-sdk";
import { chatHost, type AppConfig } from "./config";

const storageKey = "agentry.web.session";

interface Stored {
  token: string;
}

export async function initChat(cfg: AppConfig): Promise<void> {
  await Chat.init(cfg.appId, { host: chatHost(cfg) });
}

function remember(token: string | undefined): void {
  try {
    if (token) localStorage.setItem(storageKey, JSON.stringify({ token } satisfies Stored));
  } catch {
    // storage off: the session lasts until reload
  }
}

/** Development login: any uid with the server's Auth Key. */
export async function loginWithAuthKey(uid: string, authKey: string, o: { create?: boolean } = {}): Promise<Chat.User> {
  let user: Chat.User;
  try {
    user = await Chat.login(uid, authKey);
  } catch (e) {
    // Development login with a new user id: the Auth Key may create users, so the user is made.
    if (!o.create || !(e instanceof Chat.ChatException) || e.code !== "ERR_UID_NOT_FOUND") throw e;
    await Chat.createUser(new Chat.User(uid, nameOf(uid)), authKey);
    user = await Chat.login(uid, authKey);
  }
  remember(Chat.getAuthToken());
  return user;
}

/** A display name for a new user id: "dave" → "Dave", "mary-ann" → "Mary Ann". */
export function nameOf(uid: string): string {
  return uid
    .split(/[-_.]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(" ") || uid;
}

/** Production login: an auth token minted with the REST API key. */
export async function loginWithToken(token: string): Promise<Chat.User> {
  const user = await Chat.login(token);
  remember(token);
  return user;
}

/** Whether a login failed because the credentials are refused (401, ERR_AUTH_TOKEN_INVALID), as
 * opposed to the service being unreachable or failing (network, 5xx, a restart). */
export function isAuthFailure(e: unknown): boolean {
  if (!(e instanceof Chat.ChatException)) return false;
  return e.code === "ERR_AUTH_TOKEN_INVALID" || e.details?.["status"] === 401;
}

/** Logs in again with the remembered token; undefined when there is none or the service refuses
 * it (then it is forgotten). Any other failure (network, 5xx) is thrown and the token kept, so a
 * retry can resume the session. */
export async function resume(): Promise<Chat.User | undefined> {
  let stored: Stored | undefined;
  try {
    const raw = localStorage.getItem(storageKey);
    stored = raw ? (JSON.parse(raw) as Stored) : undefined;
  } catch {
    stored = undefined;
  }
  if (!stored || typeof stored.token !== "string" || stored.token === "") return undefined;
  try {
    return await loginWithToken(stored.token);
  } catch (e) {
    if (!isAuthFailure(e)) throw e;
    forget();
    return undefined;
  }
}

function forget(): void {
  try {
    localStorage.removeItem(storageKey);
  } catch {
    // nothing stored
  }
}

export async function logout(): Promise<void> {
  forget();
  await Chat.logout().catch(() => undefined);
}

/** A readable sentence for an SDK or API failure. */
export function errorText(e: unknown): string {
  if (isNetworkError(e)) return "The chat service can't be reached. Check your connection.";
  if (e instanceof Chat.ChatException) return e.message || e.code;
  if (e instanceof Error) return e.message;
  return String(e);
}

/** Whether a request failed for want of a connection (not refused by the service). */
export function isNetworkError(e: unknown): boolean {
  return e instanceof Chat.ChatException && e.code === Chat.SDK_ERROR.NETWORK && e.details?.["status"] === undefined;
}
