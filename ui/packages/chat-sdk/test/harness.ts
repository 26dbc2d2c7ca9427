/**
 * Integration harness: a real `agentry chat` per test file (ui/test/agentry.mjs), SDK clients
 * logged in as users of it, and a recorder of every listener call.
 */
import WebSocket from "ws";
import { afterAll, afterEach, beforeAll } from "vitest";
import { startChat, startDev, type ChatProcess, type DevProcess } from "../../../test/agentry.mjs";
import { ChatClient, type AppSettings } from "../src/index";

export type Proc = ChatProcess | DevProcess;

/** ws, with every instance kept so tests can cut a client's connection. */
export class TrackedWebSocket extends WebSocket {
  static all: TrackedWebSocket[] = [];
  constructor(url: string) {
    super(url);
    TrackedWebSocket.all.push(this);
  }
}

export interface Harness {
  readonly proc: Proc;
  /** A client logged in as uid (created on first use), with its recorder. */
  client(uid: string, opts?: { name?: string; settings?: Partial<AppSettings>; token?: boolean }): Promise<Session>;
}

export interface Session {
  readonly uid: string;
  readonly c: ChatClient;
  readonly rec: Recorder;
}

const fast: Partial<AppSettings> = { reconnect: { baseMs: 50, maxMs: 400 } };

/** Starts agentry (chat, or dev with the sample agents) for the file; logs clients out after each test. */
export function useAgentry(kind: "chat" | "dev" = "chat"): Harness {
  let proc: Proc | undefined;
  const clients: ChatClient[] = [];
  const users = new Set<string>();
  beforeAll(async () => {
    proc = kind === "chat" ? await startChat() : await startDev();
  }, 90_000);
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.logout()));
  });
  afterAll(async () => {
    await proc?.stop();
  });
  return {
    get proc(): Proc {
      if (!proc) throw new Error("agentry is not running");
      return proc;
    },
    async client(uid, opts = {}) {
      const p = this.proc;
      if (!users.has(uid)) {
        await p.createUser(uid, opts.name ?? uid[0]?.toUpperCase() + uid.slice(1)).catch((err: { status?: number }) => {
          if (err.status !== 409) throw err;
        });
        users.add(uid);
      }
      const c = new ChatClient();
      clients.push(c);
      const rec = new Recorder(c);
      await c.init(p.appId, { host: p.base, webSocket: TrackedWebSocket, ...fast, ...opts.settings });
      if (opts.token) await c.login(await p.mintToken(uid));
      else await c.login(uid, p.authKey);
      await rec.until((e) => e.name === "onConnected");
      return { uid, c, rec };
    },
  };
}

export interface Entry {
  readonly name: string;
  readonly args: readonly unknown[];
}

/** Every listener call of a client, in order. */
export class Recorder {
  readonly entries: Entry[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(c: ChatClient) {
    const record =
      (name: string) =>
      (...args: unknown[]): void => {
        this.entries.push({ name, args });
        for (const w of [...this.waiters]) w();
      };
    const names = (list: string[]) => Object.fromEntries(list.map((n) => [n, record(n)]));
    c.addMessageListener("recorder", names([
      "onTextMessageReceived", "onMediaMessageReceived", "onCustomMessageReceived", "onAgenticMessageReceived",
      "onMessageEdited", "onMessageDeleted", "onTypingStarted", "onTypingEnded", "onMessagesDelivered", "onMessagesRead",
      "onMessagesDeliveredToAll", "onMessagesReadByAll", "onMessageMarkedUnread", "onMessageModerated",
      "onMessageReactionAdded", "onMessageReactionRemoved",
    ]));
    c.addGroupListener("recorder", names([
      "onGroupMemberJoined", "onGroupMemberLeft", "onGroupMemberKicked", "onGroupMemberBanned", "onGroupMemberUnbanned",
      "onGroupMemberScopeChanged", "onMemberAddedToGroup", "onOwnershipChanged", "onGroupCreated", "onGroupUpdated", "onGroupDeleted",
    ]));
    c.addConnectionListener("recorder", names(["onConnected", "inConnecting", "onDisconnected", "onConnectionError", "onReset"]));
    c.addAgentListener("recorder", names(["onAgentEvent", "onAgentsChanged"]));
  }

  named(name: string): Entry[] {
    return this.entries.filter((e) => e.name === name);
  }
  /** The first argument of each call of name. */
  firsts<T>(name: string): T[] {
    return this.named(name).map((e) => e.args[0] as T);
  }
  clear(): void {
    this.entries.length = 0;
  }

  /** Resolves with the first entry (from index from) matching pred; rejects after timeoutMs. */
  until(pred: (e: Entry) => boolean, timeoutMs = 10_000, from = 0): Promise<Entry> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const hit = this.entries.slice(from).find(pred);
        if (hit) {
          this.waiters.delete(check as () => void);
          clearTimeout(timer);
          resolve(hit);
        }
        return !!hit;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check as () => void);
        reject(new Error(`timed out waiting for a listener call; got: ${this.entries.map((e) => e.name).join(", ")}`));
      }, timeoutMs);
      if (!check()) this.waiters.add(check as () => void);
    });
  }

  /** Waits until count entries named name were recorded. */
  async count(name: string, count: number, timeoutMs = 10_000): Promise<Entry[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.named(name).length < count) {
      if (Date.now() > deadline) throw new Error(`timed out: ${this.named(name).length}/${count} ${name}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.named(name);
  }
}

/** Waits until cond() holds. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
