// The session: the SDK logs in (Auth Key or token) and holds the token; the app remembers it
// so a reload logs in again.
import { Chat } from "@agentry/chat-sdk";
import { chatHost, type AppConfig } from "./config";
import { clearDrafts } from "./drafts";

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

/** Production login: an auth token minted with the REST API key. It is traded for a session
 * (POST /chat/v1/sessions) so that "Log out" ends the session and leaves the pasted token, the
 * person's way back in, as it was. */
export async function loginWithToken(token: string, chatPath = "/chat/v1"): Promise<Chat.User> {
  const session = await trade(chatPath, "/sessions", { headers: { authorization: `Bearer ${token}` } });
  if (session === undefined) throw new Chat.ChatException("ERR_AUTH_TOKEN_INVALID", "This auth token is unknown, expired or revoked.", { status: 401 });
  return loginWithSession(session);
}

/** POSTs to one of the chat's session routes and returns the session token it answers;
 * undefined on 401 (nothing to trade). */
async function trade(chatPath: string, route: string, init: RequestInit): Promise<string | undefined> {
  const r = await fetch(`${chatPath.replace(/\/+$/, "")}${route}`, { method: "POST", cache: "no-store", ...init });
  if (r.status === 401) return undefined;
  if (!r.ok) throw new Error(`The sign-in could not be completed (the chat service answered ${r.status}).`);
  const body: unknown = await r.json();
  const token = typeof body === "object" && body !== null && "authToken" in body ? body.authToken : undefined;
  if (typeof token !== "string" || token === "") throw new Error("The sign-in could not be completed: no session came back.");
  return token;
}

/** POSTs JSON to one of the chat's sign-in routes: the answer's body, or a ChatException with
 * the service's code and sentence (a wrong password, a used invitation, throttling). */
async function postSignIn(chatPath: string, route: string, body: Record<string, string>): Promise<Record<string, unknown>> {
  const r = await fetch(`${chatPath.replace(/\/+$/, "")}${route}`, {
    method: "POST", cache: "no-store", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const answer: unknown = await r.json().catch(() => undefined);
  const o = typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>) : {};
  if (!r.ok) {
    const err = typeof o.error === "object" && o.error !== null ? (o.error as Record<string, unknown>) : {};
    const code = typeof err.code === "string" ? err.code : "ERR_INTERNAL";
    const message = typeof err.message === "string" && err.message ? err.message : `The chat service answered ${r.status}.`;
    throw new Chat.ChatException(code, message, { status: r.status });
  }
  return o;
}

function sessionToken(o: Record<string, unknown>): string {
  if (typeof o.authToken !== "string" || o.authToken === "") throw new Error("The sign-in could not be completed: no session came back.");
  return o.authToken;
}

/** Sign-in with the password a person chose from an invitation. */
export async function loginWithPassword(uid: string, password: string, chatPath = "/chat/v1"): Promise<Chat.User> {
  return loginWithSession(sessionToken(await postSignIn(chatPath, "/auth/password", { uid, password })));
}

/** Who an invitation code is for (the page greets them before asking for a password). */
export async function checkInvitation(code: string, chatPath = "/chat/v1"): Promise<{ uid: string; name: string; expiresAt: number }> {
  const o = await postSignIn(chatPath, "/auth/invitation", { code });
  const user = (typeof o.user === "object" && o.user !== null ? o.user : {}) as Record<string, unknown>;
  const inv = (typeof o.invitation === "object" && o.invitation !== null ? o.invitation : {}) as Record<string, unknown>;
  const uid = typeof user.uid === "string" ? user.uid : "";
  return { uid, name: typeof user.name === "string" && user.name ? user.name : uid, expiresAt: Date.parse(String(inv.expiresAt)) };
}

/** Chooses a password with an invitation code (once) and signs in. */
export async function acceptInvitation(code: string, password: string, chatPath = "/chat/v1"): Promise<Chat.User> {
  // Someone signed in on this browser (an admin trying the link) is signed out first.
  if (await Chat.getLoggedinUser()) await logout();
  return loginWithSession(sessionToken(await postSignIn(chatPath, "/auth/invitation/accept", { code, password })));
}

/** The link an invitation's code makes: the code is in the fragment, which browsers never send
 * to a server (nor put in a Referer). */
export function invitationLink(code: string): string {
  return `${window.location.origin}/#invite=${encodeURIComponent(code)}`;
}

/** Takes #invite=<code> off the address (so it is not left in the history) and returns it. */
export function takeInvitationCode(): string | undefined {
  const m = /^#invite=([^&]+)$/.exec(window.location.hash);
  if (!m) return undefined;
  window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}

/** Logs in with a session's token and remembers it for reloads. */
async function loginWithSession(token: string): Promise<Chat.User> {
  const user = await Chat.login(token);
  remember(token);
  return user;
}

/** After a sign-in through the identity provider, the chat service holds the new session's token
 * for this browser in a short-lived HttpOnly cookie (never in the URL); the page trades it for
 * the token once. undefined when no sign-in is waiting. (A same-origin cookie exchange, so it
 * is not an SDK call: the SDK speaks bearer tokens to any host.) */
export async function completeSignIn(cfg: AppConfig): Promise<Chat.User | undefined> {
  if (!cfg.sso) return undefined;
  const token = await trade(cfg.chatPath, "/auth/session", { credentials: "same-origin" });
  return token === undefined ? undefined : loginWithSession(token);
}

/** The sentence for a sign-in the provider or the chat's policy refused (?signin_error=code). */
export function signInErrorText(code: string, provider: string): string {
  switch (code) {
    case "access_denied":
      return `Sign-in was cancelled or refused at ${provider}.`;
    case "domain":
      return "Your e-mail address is not in a domain allowed to use this chat.";
    case "group":
      return "Your account is not in a group allowed to use this chat. Ask your administrator for access.";
    case "email_unverified":
      return `Your e-mail address is not verified at ${provider}. Verify it there, then sign in again.`;
    case "deactivated":
      return "Your account has been deactivated. Ask your administrator.";
    case "throttled":
      return "Too many sign-in attempts from this address. Wait a minute, then try again.";
    default:
      return "The sign-in could not be completed. Please try again.";
  }
}

/** Takes ?signin_error off the address (so a reload does not show it again) and returns it. */
export function takeSignInError(): string | undefined {
  const url = new URL(window.location.href);
  const code = url.searchParams.get("signin_error");
  if (code === null) return undefined;
  url.searchParams.delete("signin_error");
  window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
  return code;
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
    return await loginWithSession(stored.token);
  } catch (e) {
    if (!isAuthFailure(e)) throw e;
    forget();
    return undefined;
  }
}

/** The session ended under the page (expired, revoked, the user deactivated): the token is
 * forgotten; drafts are kept for the next sign-in. */
export function sessionEnded(): void {
  forget();
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
  clearDrafts();
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
