// Reconnect and resume against a real agentry chat: a cut connection, a resume from an older
// position than processed (the service replays), a restarted service, disconnect()/connect().
import { describe, expect, test } from "vitest";
import { ChatException, TextMessage, type BaseMessage } from "../src/index";
import type { ChatProcess } from "../../../test/agentry.mjs";
import { TrackedWebSocket, until, useAgentry, type Session } from "./harness";

const h = useAgentry();

/** Resumes 6 events earlier than asked (as a client that did not save its newest pos would),
 * and keeps the frames the service sent. */
class RewindingWebSocket extends TrackedWebSocket {
  static frames: Array<{ type: string; event?: { pos: number } }> = [];
  static asked: number[] = [];
  constructor(url: string) {
    super(url);
    this.on("message", (data) => RewindingWebSocket.frames.push(JSON.parse(String(data)) as { type: string }));
  }
  override send(data: string): void {
    const f = JSON.parse(data) as { type: string; resume?: number };
    if (f.type === "auth" && typeof f.resume === "number") {
      RewindingWebSocket.asked.push(f.resume);
      f.resume = Math.max(0, f.resume - 6);
    }
    super.send(JSON.stringify(f));
  }
}

/** Resumes from a position ahead of the log (as after a database restore): the service
 * answers reset instead of a replay. */
class AheadWebSocket extends TrackedWebSocket {
  override send(data: string): void {
    const f = JSON.parse(data) as { type: string; resume?: number };
    if (f.type === "auth" && typeof f.resume === "number") f.resume += 1_000_000;
    super.send(JSON.stringify(f));
  }
}

/** The socket a client opened last (clients open one each). */
function lastSocket(): TrackedWebSocket {
  const ws = TrackedWebSocket.all[TrackedWebSocket.all.length - 1];
  if (!ws) throw new Error("no socket");
  return ws;
}

const received = (s: Session) => s.rec.named("onTextMessageReceived").map((e) => (e.args[0] as TextMessage).getText());
const send = async (from: Session, to: string, texts: string[]) => {
  for (const t of texts) await from.c.sendMessage(new TextMessage(to, t, "user"));
};
const batch = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i}`);

describe("reconnect and resume", () => {
  test("a cut connection reconnects with backoff and resumes: nothing lost, nothing twice", async () => {
    const alice = await h.client("alice");
    const bob = await h.client("bob");
    const ws = lastSocket();
    await send(alice, "bob", batch("a", 5));
    await until(() => received(bob).length === 5, "the first five");
    ws.terminate(); // no close handshake: 1006 on the client
    await send(alice, "bob", batch("b", 10)); // while bob is away
    await bob.rec.count("onConnected", 2);
    await send(alice, "bob", batch("c", 5));
    // The last one sent: events come in order, so a message told twice would be in by now.
    await until(() => received(bob).includes("c4"), "all twenty");
    expect(received(bob)).toEqual([...batch("a", 5), ...batch("b", 10), ...batch("c", 5)]);
    const conn = bob.rec.entries.filter((e) => ["onConnected", "inConnecting", "onDisconnected"].includes(e.name)).map((e) => e.name);
    expect(conn).toEqual(["inConnecting", "onConnected", "inConnecting", "onConnected"]);
    expect(TrackedWebSocket.all.filter((s) => s.readyState === s.OPEN).length).toBe(2); // one per client
  });

  test("a resume from an older pos than processed: the service replays, the SDK drops what it handled", async () => {
    const alice = await h.client("carol");
    const bob = await h.client("dan", { settings: { webSocket: RewindingWebSocket } });
    const ws = lastSocket();
    const first = await alice.c.sendMessage(new TextMessage("dan", "x0", "user"));
    await send(alice, "dan", batch("x", 6).slice(1));
    first.setText("x0 edited");
    await alice.c.editMessage(first);
    await alice.c.addReaction(first.getId(), "👍");
    await bob.rec.until((e) => e.name === "onMessageReactionAdded");
    const before = RewindingWebSocket.frames.length;
    ws.terminate();
    await bob.rec.count("onConnected", 2);
    await send(alice, "dan", ["y0", "y1"]);
    // y1 was sent last: a replayed event told twice would have come before it.
    await until(() => received(bob).includes("y1"), "the messages after the reconnect");
    // The service did replay events the SDK had processed…
    const resumedFrom = RewindingWebSocket.asked[0] ?? 0;
    const replayed = RewindingWebSocket.frames.slice(before).filter((f) => f.type === "event" && (f.event?.pos ?? 0) <= resumedFrom);
    expect(replayed.length).toBeGreaterThanOrEqual(6);
    // …and none reached the listeners twice.
    expect(received(bob)).toEqual([...batch("x", 6), "y0", "y1"]);
    expect(bob.rec.named("onMessageEdited")).toHaveLength(1);
    expect(bob.rec.named("onMessageReactionAdded")).toHaveLength(1);
  });

  test("disconnect() and connect(): what happened meanwhile is replayed once", async () => {
    const alice = await h.client("erin");
    const bob = await h.client("fred");
    await send(alice, "fred", ["before"]);
    await until(() => received(bob).length === 1, "the first message");
    bob.c.disconnect();
    await bob.rec.until((e) => e.name === "onDisconnected");
    expect(bob.c.getConnectionStatus()).toBe("disconnected");
    const m = await alice.c.sendMessage(new TextMessage("fred", "meanwhile", "user"));
    await alice.c.deleteMessage(m.getId());
    bob.c.connect();
    await until(() => received(bob).length === 2 && bob.rec.named("onMessageDeleted").length === 1, "the replay");
    expect(received(bob)).toEqual(["before", "meanwhile"]);
    expect((bob.rec.firsts<BaseMessage>("onMessageDeleted")[0] as BaseMessage).getId()).toBe(m.getId());
  });
});

describe("reconnect and resume: reset and restart", () => {
  test("reset: the service cannot replay; onReset, and events continue from the new position", async () => {
    const alice = await h.client("ivy");
    const bob = await h.client("jack", { settings: { webSocket: AheadWebSocket } });
    await send(alice, "jack", ["before"]);
    await until(() => received(bob).length === 1, "the first message");
    const bobSocket = TrackedWebSocket.all.filter((s) => s instanceof AheadWebSocket).pop();
    bobSocket?.terminate();
    await bob.rec.until((e) => e.name === "onReset", 10_000);
    expect(bob.rec.named("onConnected")).toHaveLength(2); // the recorder has onReset: no extra onConnected
    await send(alice, "jack", ["after"]);
    await until(() => received(bob).length === 2, "the message after the reset");
    expect(received(bob)).toEqual(["before", "after"]);
  });

  test("a restarted service: REST fails with ERR_NETWORK while it is down, the socket comes back and resumes", async () => {
    const proc = h.proc as ChatProcess;
    const alice = await h.client("gina");
    const bob = await h.client("hank");
    await send(alice, "hank", ["one"]);
    await until(() => received(bob).length === 1, "the first message");
    await proc.kill();
    const err = await alice.c.sendMessage(new TextMessage("hank", "lost", "user")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChatException);
    expect((err as ChatException).code).toBe("ERR_NETWORK");
    await bob.rec.until((e) => e.name === "inConnecting", 10_000, 1);
    await proc.restart();
    await bob.rec.count("onConnected", 2, 15_000);
    await alice.rec.count("onConnected", 2, 15_000);
    await send(alice, "hank", ["two"]);
    await until(() => received(bob).length === 2, "the message after the restart", 15_000);
    expect(received(bob)).toEqual(["one", "two"]);
    expect(bob.rec.named("onConnectionError").every((e) => (e.args[0] as ChatException).code === "ERR_NETWORK")).toBe(true);
  });
});
