/** Fakes for unit tests: a scripted fetch and a WebSocket the test plays the server of. */
import type { FetchLike } from "../http";
import type { WireEvent } from "../wire";

export interface Call {
  method: string;
  url: URL;
  body: unknown;
  headers: Record<string, string>;
}

type Handler = (call: Call) => { status?: number; body?: unknown; headers?: Record<string, string> } | undefined;

/** A fetch answering from handlers (first non-undefined answer wins; else 404). */
export function fakeFetch(...handlers: Handler[]): { fetch: FetchLike; calls: Call[] } {
  const calls: Call[] = [];
  const fetch: FetchLike = async (input, init) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries((init?.headers as Record<string, string>) ?? {})) headers[k.toLowerCase()] = v;
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as unknown) : undefined;
    const call: Call = { method: init?.method ?? "GET", url: new URL(input), body, headers };
    calls.push(call);
    for (const h of handlers) {
      const r = h(call);
      if (r) {
        const status = r.status ?? 200;
        const text = r.body === undefined ? "" : JSON.stringify(r.body);
        return new Response(status === 204 ? null : text, { status, headers: { "content-type": "application/json", ...r.headers } });
      }
    }
    return new Response(JSON.stringify({ error: { code: "ERR_NOT_FOUND", message: "no route" } }), { status: 404 });
  };
  return { fetch, calls };
}

/** route matches "METHOD /path" (path under /chat/v1, without the query). */
export function route(method: string, path: string, answer: (call: Call) => unknown, status = 200): Handler {
  return (call) => (call.method === method && call.url.pathname === `/chat/v1${path}` ? { status, body: answer(call) } : undefined);
}

/** Users exist for every uid; GET /groups/{guid} answers a group with membersCount from counts. */
export function directoryRoutes(counts: Record<string, number> = {}): Handler[] {
  return [
    (call) => {
      const m = /^\/chat\/v1\/users\/([^/]+)$/.exec(call.url.pathname);
      return call.method === "GET" && m ? { body: { uid: m[1], name: `Name of ${m[1]}`, kind: "user" } } : undefined;
    },
    (call) => {
      const m = /^\/chat\/v1\/groups\/([^/]+)$/.exec(call.url.pathname);
      if (call.method !== "GET" || !m) return undefined;
      const guid = decodeURIComponent(m[1] ?? "");
      return { body: { guid, name: `Group ${guid}`, type: "public", owner: "owner", membersCount: counts[guid] ?? 1, hasJoined: true, scope: "participant" } };
    },
  ];
}

export const loginRoute = route("POST", "/login", (c) => {
  const uid = (c.body as { uid: string }).uid;
  return { authToken: `token-of-${uid}`, id: "t1", user: { uid, name: uid.toUpperCase(), kind: "user" } };
});

export class FakeWebSocket {
  static instances: FakeWebSocket[] = [];
  static last(): FakeWebSocket {
    const ws = FakeWebSocket.instances[FakeWebSocket.instances.length - 1];
    if (!ws) throw new Error("no socket was opened");
    return ws;
  }
  readyState = 0;
  readonly sent: unknown[] = [];
  closedWith: number | undefined;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;

  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this);
    queueMicrotask(() => {
      if (this.readyState !== 0) return;
      this.readyState = 1;
      this.onopen?.({});
    });
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as unknown);
  }
  close(code = 1000): void {
    this.closedWith = code;
    this.readyState = 3;
  }
  /** The server sends a frame. */
  frame(f: object): void {
    this.onmessage?.({ data: JSON.stringify(f) });
  }
  ready(pos: number, uid = "me"): void {
    this.frame({ type: "ready", uid, pos });
  }
  event(ev: Omit<Partial<WireEvent>, "data"> & { type: string; pos: number; data: unknown }): void {
    this.frame({ type: "event", event: { at: "2026-01-01T00:00:00Z", ...ev } });
  }
  /** The server (or the network) closes the socket. */
  drop(code: number): void {
    this.readyState = 3;
    this.onclose?.({ code, reason: "" });
  }
}

/** Waits until cond holds (polling every 2 ms, 10 s at most: a busy machine is slow, not wrong). */
export async function until(cond: () => boolean, what = "condition"): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

export function wireMessage(id: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    conversationId: "user_alice_user_me",
    sender: "alice",
    receiver: "me",
    receiverType: "user",
    category: "message",
    type: "text",
    text: `message ${id}`,
    sentAt: "2026-01-01T00:00:00Z",
    ...over,
  };
}
