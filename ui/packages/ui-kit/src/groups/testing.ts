/**
 * Test helpers of the groups list (unit tests only; not exported by the package): the real SDK
 * (Chat namespace) over a fake chat service, i.e. a scripted fetch and a WebSocket the test
 * plays the server of, so listener calls go through the SDK's own dispatch.
 */
import { Chat } from "@agentry/chat-sdk";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { createElement } from "react";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { ChatGroups } from "./ChatGroups";
import type { ChatGroupsProps } from "./props";

export interface FakeGroup {
  guid: string;
  name: string;
  type?: "public" | "private" | "password";
  membersCount: number;
  hasJoined?: boolean;
  scope?: "admin" | "moderator" | "participant";
  tags?: string[];
  icon?: string;
}

type Hold = (url: URL) => Promise<void> | undefined;

function json(body: unknown, status = 200): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** The chat service's group routes over an in-memory directory (guid order, cursor = last guid). */
export class FakeService {
  readonly groups = new Map<string, FakeGroup>();
  /** The query of every GET /groups, in order. */
  readonly listCalls: URLSearchParams[] = [];
  /** The service is down: every call answers 503 (the SDK's ERR_NETWORK). */
  down = false;
  /** Holds a GET /groups answer until the promise settles (stale-answer tests). */
  hold: Hold | undefined;

  add(...gs: FakeGroup[]): this {
    for (const g of gs) this.groups.set(g.guid, { type: "public", hasJoined: false, ...g });
    return this;
  }

  /** n public groups g001… named "Group 001"… with i members. */
  many(n: number, over: (i: number) => Partial<FakeGroup> = () => ({})): this {
    for (let i = 1; i <= n; i++) {
      const id = String(i).padStart(3, "0");
      this.add({ guid: `g${id}`, name: `Group ${id}`, membersCount: i, ...over(i) });
    }
    return this;
  }

  set(guid: string, patch: Partial<FakeGroup>): void {
    const g = this.groups.get(guid);
    if (!g) throw new Error(`no group ${guid}`);
    this.groups.set(guid, { ...g, ...patch });
  }

  readonly fetch = async (input: string, init?: RequestInit): Promise<Response> => {
    const url = new URL(input);
    const method = init?.method ?? "GET";
    const path = url.pathname.replace(/^\/chat\/v1/, "");
    if (this.down) return json({ error: { code: "ERR_SERVICE_UNAVAILABLE", message: "down" } }, 503);
    if (method === "POST" && path === "/login") {
      const uid = (JSON.parse(String(init?.body)) as { uid: string }).uid;
      return json({ authToken: `token-of-${uid}`, user: { uid, name: uid.toUpperCase(), kind: "user" } });
    }
    let m = /^\/users\/([^/]+)$/.exec(path);
    if (method === "GET" && m) return json({ uid: m[1], name: `Name of ${m[1]}`, kind: "user" });
    if (method === "GET" && path === "/groups") {
      this.listCalls.push(url.searchParams);
      await this.hold?.(url);
      if (this.down) return json({ error: { code: "ERR_SERVICE_UNAVAILABLE", message: "down" } }, 503);
      const q = url.searchParams;
      const limit = Number(q.get("limit") ?? 30);
      const after = q.get("cursor") ?? "";
      const kw = (q.get("searchKeyword") ?? "").toLowerCase();
      const joined = q.get("joinedOnly") === "true";
      const all = [...this.groups.values()]
        .filter((g) => g.guid > after && (g.type !== "private" || g.hasJoined))
        .filter((g) => (!kw || g.name.toLowerCase().includes(kw)) && (!joined || g.hasJoined))
        .sort((a, b) => (a.guid < b.guid ? -1 : 1));
      const items = all.slice(0, limit);
      const last = items[items.length - 1];
      return json({ items, ...(all.length > limit && last ? { next: last.guid } : {}) });
    }
    m = /^\/groups\/([^/]+)$/.exec(path);
    if (method === "GET" && m) {
      const g = this.groups.get(decodeURIComponent(m[1] ?? ""));
      return g ? json(g) : json({ error: { code: "ERR_GUID_NOT_FOUND", message: "no group" } }, 404);
    }
    return json({ error: { code: "ERR_NOT_FOUND", message: `no route ${method} ${path}` } }, 404);
  };
}

/** A WebSocket the test plays the server of. */
export class FakeSocket {
  static instances: FakeSocket[] = [];
  static last(): FakeSocket {
    const ws = FakeSocket.instances[FakeSocket.instances.length - 1];
    if (!ws) throw new Error("no socket was opened");
    return ws;
  }
  readyState = 0;
  readonly sent: unknown[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  private pos = 1;
  private seq = 1;
  private id = 1000;

  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
    queueMicrotask(() => {
      if (this.readyState !== 0) return;
      this.readyState = 1;
      this.onopen?.({});
    });
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as unknown);
  }
  close(): void {
    this.readyState = 3;
  }
  frame(f: object): void {
    this.onmessage?.({ data: JSON.stringify(f) });
  }
  ready(uid = "me"): void {
    this.frame({ type: "ready", uid, pos: this.pos });
  }
  reset(): void {
    this.frame({ type: "reset", pos: ++this.pos });
  }
  event(type: string, data: unknown, over: Record<string, unknown> = {}): void {
    this.frame({ type: "event", event: { type, pos: ++this.pos, at: "2026-01-01T00:00:00Z", data, ...over } });
  }
  /** A membership change as the service stores it: the group's action message. */
  member(change: { action: string; by: string; on: string; guid: string; scope?: string; oldScope?: string }): void {
    const conversationId = `group_${change.guid}`;
    this.event(
      "message.created",
      {
        id: ++this.id,
        conversationId,
        sender: change.by,
        receiver: change.guid,
        receiverType: "group",
        category: "action",
        type: "groupMember",
        data: change,
        sentAt: "2026-01-01T00:00:00Z",
      },
      { conversationId, seq: ++this.seq },
    );
  }
}

let hosts = 0;

/** Chat.init on svc (a new host each time, so a new session) and login as uid; the socket is
 * ready when this resolves. */
export async function connect(svc: FakeService, uid = "me", opts: { ready?: boolean } = {}): Promise<FakeSocket> {
  await Chat.logout().catch(() => undefined);
  FakeSocket.instances = [];
  await Chat.init("app", {
    host: `http://chat-${++hosts}.test`,
    fetch: svc.fetch,
    webSocket: FakeSocket,
    reconnect: { baseMs: 5, maxMs: 10 },
  });
  await Chat.login(uid, "key");
  await until(() => FakeSocket.instances.length > 0 && FakeSocket.last().sent.length > 0, "the socket's auth frame");
  const ws = FakeSocket.last();
  if (opts.ready !== false) ws.ready(uid);
  return ws;
}

/** How many group and connection listeners the SDK holds (the Chat namespace's session). */
export function listenerCounts(): { group: number; connection: number } {
  const c = Chat.getClient() as unknown as { s: { listeners: { group: { size: number }; connection: { size: number } } } };
  return { group: c.s.listeners.group.size, connection: c.s.listeners.connection.size };
}

/** Waits until cond holds (5 s at most). */
export async function until(cond: () => boolean, what = "condition", ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** An IntersectionObserver whose entries the test decides. */
export class FakeIntersectionObserver {
  static instances: FakeIntersectionObserver[] = [];
  readonly targets = new Set<Element>();
  disconnected = false;
  constructor(
    private readonly callback: (entries: { isIntersecting: boolean; target: Element }[]) => void,
    readonly options?: { root?: Element | null; rootMargin?: string },
  ) {
    FakeIntersectionObserver.instances.push(this);
  }
  observe(el: Element): void {
    this.targets.add(el);
  }
  unobserve(el: Element): void {
    this.targets.delete(el);
  }
  disconnect(): void {
    this.disconnected = true;
    this.targets.clear();
  }
  takeRecords(): [] {
    return [];
  }
  /** The observed targets come into view. */
  static intersect(): void {
    for (const io of FakeIntersectionObserver.instances) {
      if (!io.disconnected) io.callback([...io.targets].map((target) => ({ isIntersecting: true, target })));
    }
  }
  static live(): number {
    return FakeIntersectionObserver.instances.filter((io) => !io.disconnected).length;
  }
}

/** The specification's "Groups selectors" (Styling hooks), spelled out. */
export const SPEC_SELECTORS = [
  ".chat-groups",
  ".chat-groups .chat-list__header-title",
  ".chat-groups .chat-search-bar__input",
  ".chat-groups .chat-list-item",
  ".chat-groups .chat-list-item__body-title",
  ".chat-groups__list-item .chat-avatar",
  ".chat-groups__list-item .chat-list-item__leading-view",
  ".chat-groups__subtitle",
  ".chat-groups__list-item-active .chat-list-item",
  ".chat-groups__list-item-password .chat-list-item__status",
  ".chat-groups__list-item-password .chat-list-item__status-icon",
  ".chat-groups__list-item-private .chat-list-item__status",
  ".chat-groups__list-item-private .chat-list-item__status-icon",
  ".chat-groups__empty-state-view",
  ".chat-groups__empty-state-view-body-title",
  ".chat-groups__empty-state-view-body-description",
  ".chat-groups__error-state-view",
  ".chat-groups__error-state-view-body-title",
  ".chat-groups__error-state-view-body-description",
  ".chat-groups__shimmer",
  ".chat-groups__shimmer-item",
  ".chat-groups__shimmer-item-avatar",
  ".chat-groups__shimmer-item-body-title",
  ".chat-groups__shimmer-item-body-subtitle",
];

/** Each test gets a fresh service of 75 groups (or as set up), connected; everything rendered is
 * unmounted and every stub restored after it. */
export function useGroupsService(setup: () => FakeService = () => new FakeService().many(75)): { svc: FakeService; ws: FakeSocket } {
  const t = {} as { svc: FakeService; ws: FakeSocket };
  beforeEach(async () => {
    FakeIntersectionObserver.instances = [];
    vi.stubGlobal("IntersectionObserver", FakeIntersectionObserver);
    t.svc = setup();
    t.ws = await connect(t.svc);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
  return t;
}

export const options = () => screen.queryAllByRole("option");
export const names = () => options().map((o) => o.querySelector(".chat-list-item__body-title")?.textContent);

/** Renders the list and waits for its first rows. */
export async function mount(props: ChatGroupsProps = {}, count = 30) {
  const r = render(createElement(ChatGroups, props));
  await waitFor(() => expect(options()).toHaveLength(count));
  return r;
}
