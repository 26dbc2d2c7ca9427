// /app-config.json: where the chat API is and, on development servers, the Auth Key login.

export interface DevUser {
  readonly uid: string;
  readonly name: string;
  readonly role?: string;
}

export interface AppConfig {
  /** The chat API's path on this origin, normally "/chat/v1". */
  readonly chatPath: string;
  /** May be empty. */
  readonly appId: string;
  /** Present only when the server has a development Auth Key. */
  readonly devLogin?: { readonly authKey: string; readonly users: readonly DevUser[] };
  /** Present when people sign in through an OpenID provider: the button's name and where it goes. */
  readonly sso?: { readonly name: string; readonly url: string; readonly logoutUrl?: string };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Parses the server's answer, tolerating missing fields. */
export function parseConfig(v: unknown): AppConfig {
  const o = isRecord(v) ? v : {};
  const chatPath = typeof o.chatPath === "string" && o.chatPath !== "" ? o.chatPath : "/chat/v1";
  const appId = typeof o.appId === "string" ? o.appId : "";
  const s = isRecord(o.sso) ? o.sso : undefined;
  const sso = s && typeof s.url === "string" && s.url.startsWith("/")
    ? { sso: { name: typeof s.name === "string" && s.name ? s.name : "your identity provider", url: s.url,
      ...(typeof s.logoutUrl === "string" && /^https?:\/\//.test(s.logoutUrl) ? { logoutUrl: s.logoutUrl } : {}) } }
    : {};
  const d = isRecord(o.devLogin) ? o.devLogin : undefined;
  if (!d || typeof d.authKey !== "string" || d.authKey === "") return { chatPath, appId, ...sso };
  const users: DevUser[] = [];
  for (const u of Array.isArray(d.users) ? d.users : []) {
    if (isRecord(u) && typeof u.uid === "string") {
      users.push({ uid: u.uid, name: typeof u.name === "string" && u.name ? u.name : u.uid, ...(typeof u.role === "string" ? { role: u.role } : {}) });
    }
  }
  return { chatPath, appId, devLogin: { authKey: d.authKey, users }, ...sso };
}

export async function loadConfig(): Promise<AppConfig> {
  const r = await fetch("/app-config.json", { headers: { accept: "application/json" }, cache: "no-store" });
  if (!r.ok) throw new Error(`GET /app-config.json answered ${r.status}`);
  return parseConfig(await r.json());
}

/** The chat service's base for Chat.init (the SDK adds /chat/v1): this page's origin. */
export function chatHost(cfg: AppConfig): string {
  const base = cfg.chatPath.replace(/\/+$/, "").replace(/\/chat\/v1$/, "");
  return window.location.origin + base;
}
