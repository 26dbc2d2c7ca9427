/** One SDK session: settings, REST client, the logged-in user and token, real time. */
import type { BackoffOptions } from "./backoff";
import type { ConnectionStatus } from "./constants";
import { Directory } from "./directory";
import { ChatException, SDK_ERROR } from "./exception";
import { Http, type FetchLike } from "./http";
import { Listeners } from "./listeners";
import { messageFromWire } from "./mapping";
import type { BaseMessage } from "./models/message";
import type { User } from "./models/user";
import { Realtime } from "./realtime";
import type { WebSocketCtor } from "./socket";
import type { WireMessage, WireUser } from "./wire";

export interface AppSettings {
  /** Kept for compatibility with the commercial SDK; the service has no regions. */
  region?: string;
  /** The chat service's base, e.g. "http://127.0.0.1:4111" (the SDK adds /chat/v1). */
  host: string;
  /** A WebSocket constructor; browsers need none, Node 20 passes the `ws` package's. */
  webSocket?: WebSocketCtor;
  /** A fetch implementation (default: the global fetch). */
  fetch?: FetchLike;
  /** Reconnect backoff (default: 500 ms doubling up to 30 s, with jitter). */
  reconnect?: BackoffOptions;
  /** REST request timeout (default 30 s; then ERR_NETWORK). */
  requestTimeoutMs?: number;
  /** A received typing indicator ends by itself when not renewed within this (default 10 s). */
  typingTimeoutMs?: number;
  /** Open the WebSocket on login (default true). */
  autoConnect?: boolean;
}

interface LoginResponse {
  authToken: string;
  user?: WireUser;
}

export class Session {
  appId: string | undefined;
  settings: AppSettings | undefined;
  private httpClient: Http | undefined;
  private dir: Directory | undefined;
  readonly listeners = new Listeners();
  user: User | undefined;
  token: string | undefined;
  realtime: Realtime | undefined;
  /** Conversations whose agent run in flight is followed (conversation → how many follow). */
  readonly agentRuns = new Map<string, number>();
  private pendingLogin: { key: string; promise: Promise<User> } | undefined;

  /** Sets the app up; calling it again with the same settings changes nothing. */
  async init(appId: string, settings: AppSettings): Promise<boolean> {
    if (!settings || typeof settings.host !== "string" || settings.host === "") {
      throw new ChatException(SDK_ERROR.VALIDATION, "Chat.init needs settings.host (the chat service's base URL)");
    }
    const host = settings.host.replace(/\/+$/, "").replace(/\/chat\/v1$/, "");
    if (this.settings && this.appId === appId && this.settings.host === host) {
      this.settings = { ...settings, host };
      return true;
    }
    this.end(); // synchronously, so a second init racing this one (strict mode) sees the new settings
    this.appId = appId;
    this.settings = { ...settings, host };
    const fetchFn: FetchLike | undefined = settings.fetch ?? (typeof fetch === "function" ? (u, i) => fetch(u, i) : undefined);
    if (!fetchFn) throw new ChatException(SDK_ERROR.VALIDATION, "no fetch: pass settings.fetch");
    this.httpClient = new Http(`${host}/chat/v1`, fetchFn, () => this.token, settings.requestTimeoutMs);
    this.dir = new Directory(this.httpClient, host);
    return true;
  }

  get http(): Http {
    if (!this.httpClient) throw new ChatException(SDK_ERROR.NOT_INITIALIZED, "call Chat.init first");
    return this.httpClient;
  }
  get directory(): Directory {
    if (!this.dir) throw new ChatException(SDK_ERROR.NOT_INITIALIZED, "call Chat.init first");
    return this.dir;
  }

  /** The logged-in user, or ERR_NOT_LOGGED_IN. */
  me(): User {
    if (!this.user || !this.token) throw new ChatException(SDK_ERROR.NOT_LOGGED_IN, "log in first (Chat.login)");
    return this.user;
  }

  /** Logs in with the development Auth Key (uid, authKey) or with an auth token (token). */
  login(uidOrToken: string, authKey?: string): Promise<User> {
    const key = authKey === undefined ? `token:${uidOrToken}` : `uid:${uidOrToken}`;
    // React strict mode runs effects twice: the second login joins the first.
    if (this.pendingLogin?.key === key) return this.pendingLogin.promise;
    if (this.user && this.token && (key === `token:${this.token}` || key === `uid:${this.user.getUid()}`)) {
      return Promise.resolve(this.user);
    }
    const promise = this.doLogin(uidOrToken, authKey).finally(() => {
      if (this.pendingLogin?.promise === promise) this.pendingLogin = undefined;
    });
    this.pendingLogin = { key, promise };
    return promise;
  }

  private async doLogin(uidOrToken: string, authKey?: string): Promise<User> {
    const http = this.http;
    if (typeof uidOrToken !== "string" || uidOrToken === "") {
      throw new ChatException(SDK_ERROR.VALIDATION, "login needs a uid and Auth Key, or an auth token");
    }
    let token: string;
    let wireUser: WireUser;
    if (authKey !== undefined) {
      const res = await http.json<LoginResponse>("POST", "/login", { auth: "none", body: { appId: this.appId, uid: uidOrToken, authKey } });
      token = res.authToken;
      wireUser = res.user ?? (await http.json<WireUser>("GET", "/me", { auth: { headers: { authorization: `Bearer ${token}` } } }));
    } else {
      token = uidOrToken;
      wireUser = await http.json<WireUser>("GET", "/me", { auth: { headers: { authorization: `Bearer ${token}` } } });
    }
    this.end();
    this.token = token;
    this.user = this.directory.putWireUser(wireUser);
    if (this.settings?.autoConnect !== false) this.connect();
    return this.user;
  }

  /** Opens the session's WebSocket (login does it); resumes after the last processed event. */
  connect(): void {
    this.me();
    if (!this.realtime) {
      const ctor = this.settings?.webSocket ?? (globalThis as { WebSocket?: WebSocketCtor }).WebSocket;
      if (!ctor) throw new ChatException(SDK_ERROR.VALIDATION, "no WebSocket: pass settings.webSocket (the ws package in Node)");
      const opts: ConstructorParameters<typeof Realtime>[0] = {
        url: `${this.http.base.replace(/^http/, "ws")}/ws`,
        ctor,
        token: () => this.token,
        me: () => this.user?.getUid(),
        directory: this.directory,
        listeners: this.listeners,
        agentRuns: () => this.agentRuns.keys(),
      };
      if (this.settings?.reconnect) opts.backoff = this.settings.reconnect;
      if (this.settings?.typingTimeoutMs !== undefined) opts.typingTimeoutMs = this.settings.typingTimeoutMs;
      // A refused token is a session that has ended: calls answer ERR_NOT_LOGGED_IN and login
      // (even as the same user) logs in afresh instead of returning the dead session.
      const rt = new Realtime({
        ...opts,
        refused: () => {
          if (this.realtime !== rt) return;
          this.token = undefined;
          this.user = undefined;
        },
      });
      this.realtime = rt;
    }
    this.realtime.start();
  }

  /** Closes the WebSocket and stops reconnecting; connect() resumes without losing events. */
  disconnect(): void { this.realtime?.pause(); }

  connectionStatus(): ConnectionStatus { return this.realtime?.status ?? "disconnected"; }

  /**
   * Revokes the session's token on the service (POST /logout), closes the socket and forgets
   * the token, the user and the caches. Best effort: the request goes out with the token first,
   * the local session ends at once either way, and a network error or a refusal (401: the token
   * was already revoked or expired) never makes logout fail.
   */
  async logout(): Promise<void> {
    const token = this.token;
    const http = this.httpClient;
    const revoke =
      http && token
        ? http.request("POST", "/logout", { auth: { headers: { authorization: `Bearer ${token}` } } }).then(
            () => undefined,
            () => undefined,
          )
        : undefined;
    // Ended now, not after the answer: a login started meanwhile keeps its new session, and
    // the socket closes with 1000 before the service's 4001 for the revoked token could arrive.
    this.end();
    await revoke;
  }

  private end(): void {
    const rt = this.realtime;
    this.realtime = undefined;
    this.user = undefined;
    this.token = undefined;
    this.dir?.clear();
    rt?.stop();
  }

  /** Messages from the service, their senders looked up first. */
  async messages(ws: readonly WireMessage[]): Promise<BaseMessage[]> {
    const dir = this.directory;
    await dir.resolveUsers(ws.flatMap((w) => [w.sender, w.quotedMessage?.sender]));
    return ws.map((w) => messageFromWire(w, dir));
  }
  async message(w: WireMessage): Promise<BaseMessage> { return (await this.messages([w]))[0] as BaseMessage; }
}
