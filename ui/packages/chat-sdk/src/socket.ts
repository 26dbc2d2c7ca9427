/**
 * The session's one WebSocket: first-frame auth with the last processed pos, reconnect with
 * exponential backoff and jitter, close codes (docs/chat-service.md, "WebSocket protocol").
 */
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from "./backoff";
import type { ConnectionStatus } from "./constants";
import { ChatException, SDK_ERROR } from "./exception";
import type { ServerFrame } from "./wire";

/** A WebSocket constructor: the browser's WebSocket, or the `ws` package's in Node. */
export type WebSocketCtor = new (url: string) => {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
};

/** What the SDK uses of a socket instance (browser WebSocket and ws both have it). */
interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  /** ws only: pings, and an abrupt close. */
  on?: (event: string, fn: () => void) => void;
  terminate?: () => void;
}

export interface SocketHooks {
  frame(f: ServerFrame): void;
  status(s: ConnectionStatus): void;
  error(e: ChatException): void;
  /** The service refused the token (close 4001): the socket stopped for good. */
  refused(): void;
}

export interface SocketOptions {
  url: string;
  ctor: WebSocketCtor;
  token(): string | undefined;
  /** The pos to resume from (undefined on a first connection). */
  resume(): number | undefined;
  hooks: SocketHooks;
  backoff?: BackoffOptions;
  /** Reconnect when nothing (no frame, no ping) arrived for this long; only where pings are
   * visible (ws). Default 70 s (the server pings every 25 s). */
  idleMs?: number;
  /** Give up on an attempt that is not ready within this long. Default 20 s. */
  connectMs?: number;
}

const OPEN = 1;

function unref(t: ReturnType<typeof setTimeout>): void {
  (t as { unref?: () => void }).unref?.();
}

export class Socket {
  private ws: SocketLike | undefined;
  private running = false;
  private attempt = 0;
  private ready = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private idle: ReturnType<typeof setTimeout> | undefined;
  private connectTimer: ReturnType<typeof setTimeout> | undefined;
  private state: ConnectionStatus = "disconnected";

  constructor(private readonly o: SocketOptions) {}

  get status(): ConnectionStatus { return this.state; }

  /** Connects now (again, if stopped), and keeps reconnecting until stop(). */
  start(): void {
    this.running = true;
    this.attempt = 0;
    if (this.retry !== undefined) {
      clearTimeout(this.retry);
      this.retry = undefined;
    }
    if (!this.ws) this.connect();
  }

  /** Closes the socket (1000) and stops reconnecting. */
  stop(): void {
    this.running = false;
    this.clearTimers();
    const ws = this.ws;
    this.ws = undefined;
    if (ws) {
      this.detach(ws);
      try {
        ws.close(1000, "logout");
      } catch {
        // already closing
      }
    }
    this.setStatus("disconnected");
  }

  /** A reconnect attempt waiting for its backoff starts now (e.g. the browser came online). */
  wake(): void {
    if (this.running && this.retry !== undefined) this.start();
  }

  send(frame: object): boolean {
    if (!this.ws || !this.ready || this.ws.readyState !== OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  private setStatus(s: ConnectionStatus): void {
    if (this.state === s) return;
    this.state = s;
    this.o.hooks.status(s);
  }

  private clearTimers(): void {
    for (const t of [this.retry, this.idle, this.connectTimer]) if (t !== undefined) clearTimeout(t);
    this.retry = this.idle = this.connectTimer = undefined;
  }

  private connect(): void {
    this.retry = undefined;
    const token = this.o.token();
    if (!token) {
      this.running = false;
      this.setStatus("disconnected");
      return;
    }
    this.setStatus("connecting");
    this.ready = false;
    let ws: SocketLike;
    try {
      ws = new this.o.ctor(this.o.url) as unknown as SocketLike;
    } catch (err) {
      this.o.hooks.error(new ChatException(SDK_ERROR.NETWORK, `cannot open the WebSocket: ${err instanceof Error ? err.message : String(err)}`));
      this.schedule(1006);
      return;
    }
    this.ws = ws;
    this.connectTimer = setTimeout(() => this.abort(ws), this.o.connectMs ?? 20_000);
    unref(this.connectTimer);
    ws.onopen = () => {
      const resume = this.o.resume();
      ws.send(JSON.stringify(resume === undefined ? { type: "auth", token } : { type: "auth", token, resume }));
      this.alive(ws);
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      this.alive(ws);
      let f: ServerFrame;
      try {
        f = JSON.parse(String(ev.data)) as ServerFrame;
      } catch {
        return; // not JSON: ignore, as the protocol ignores unknown frames
      }
      if (f.type === "ready") {
        this.ready = true;
        this.attempt = 0;
        if (this.connectTimer !== undefined) clearTimeout(this.connectTimer);
        this.connectTimer = undefined;
        this.setStatus("connected");
      }
      this.o.hooks.frame(f);
    };
    ws.onerror = () => {
      // A close event follows; it decides what happens.
    };
    ws.onclose = (ev) => this.closed(ws, ev.code, ev.reason ?? "");
    if (typeof ws.on === "function") ws.on("ping", () => this.alive(ws));
  }

  /** Stops listening to a socket being dropped. Its errors are swallowed: ws reports closing
   * a socket that is still connecting as an error, which must not go unhandled. */
  private detach(ws: SocketLike): void {
    ws.onclose = ws.onmessage = ws.onopen = null;
    ws.onerror = () => undefined;
  }

  /** Arms the idle watchdog (only where pings are visible). */
  private alive(ws: SocketLike): void {
    if (typeof ws.on !== "function") return;
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.abort(ws), this.o.idleMs ?? 70_000);
    unref(this.idle);
  }

  /** Drops a socket that stopped answering; its close event reconnects. */
  private abort(ws: SocketLike): void {
    if (this.ws !== ws) return;
    if (typeof ws.terminate === "function") ws.terminate();
    else {
      // Browsers: give up on it now, reconnect with a fresh socket.
      this.detach(ws);
      try {
        ws.close(4000, "no answer");
      } catch {
        // ignore
      }
      this.closed(ws, 1006, "no answer");
    }
  }

  private closed(ws: SocketLike, code: number, reason: string): void {
    if (this.ws !== ws) return;
    this.ws = undefined;
    const wasReady = this.ready;
    this.ready = false;
    this.clearTimers();
    if (!this.running) return;
    if (code === 4001) {
      this.running = false;
      this.o.hooks.refused();
      this.o.hooks.error(new ChatException("ERR_AUTH_TOKEN_INVALID", `the chat service refused the session: ${reason || "unauthorized"}`, { closeCode: code }));
      this.setStatus("disconnected");
      return;
    }
    if (code === 4009) {
      // The user opened too many sockets and this, the oldest, was closed: reconnecting would
      // close another of them, and so on. The app may connect again (e.g. when shown).
      this.running = false;
      this.o.hooks.error(new ChatException(SDK_ERROR.TOO_MANY_SOCKETS, `the chat service closed this connection: ${reason || "too many sockets for this user"}`, { closeCode: code }));
      this.setStatus("disconnected");
      return;
    }
    if (!wasReady) {
      this.o.hooks.error(new ChatException(SDK_ERROR.NETWORK, `cannot connect to the chat service (close ${code}${reason ? `: ${reason}` : ""})`, { closeCode: code }));
    }
    this.schedule(code);
  }

  private schedule(code: number): void {
    // 4008 (too slow) asks for an immediate reconnect; everything else backs off.
    const delay = code === 4008 && this.attempt === 0 ? 0 : backoffDelay(this.attempt, this.o.backoff ?? DEFAULT_BACKOFF);
    this.attempt++;
    this.setStatus("connecting");
    this.retry = setTimeout(() => this.connect(), delay);
  }
}
