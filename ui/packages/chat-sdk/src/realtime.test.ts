import { beforeEach, describe, expect, test } from "vitest";
import { ChatClient } from "./client";
import { AgentListener } from "./listeners";
import type { ChatException } from "./exception";
import type { Action } from "./models/action";
import type { Group } from "./models/group";
import type { User } from "./models/user";
import { directoryRoutes, fakeFetch, FakeWebSocket, loginRoute, until, wireMessage } from "./testing/fakes";

beforeEach(() => {
  FakeWebSocket.instances = [];
});

async function connected(counts: Record<string, number> = {}) {
  const f = fakeFetch(loginRoute, ...directoryRoutes(counts));
  const c = new ChatClient();
  const log: string[] = [];
  const errors: ChatException[] = [];
  await c.init("app", { host: "http://chat.test", fetch: f.fetch, webSocket: FakeWebSocket, reconnect: { baseMs: 1, maxMs: 2 }, typingTimeoutMs: 30 });
  c.addConnectionListener("log", {
    onConnected: () => log.push("connected"),
    inConnecting: () => log.push("connecting"),
    onDisconnected: () => log.push("disconnected"),
    onConnectionError: (e) => errors.push(e),
  });
  c.addMessageListener("log", {
    onTextMessageReceived: (m) => log.push(`text ${m.getId()} ${m.getSender()?.getName()}`),
    onMessageEdited: (m) => log.push(`edited ${m.getId()}`),
    onTypingStarted: (t) => log.push(`typing ${t.getSender()?.getUid()} ${t.getReceiverId()}`),
    onTypingEnded: (t) => log.push(`typed ${t.getSender()?.getUid()}`),
    onMessagesRead: (r) => log.push(`read ${r.getMessageId()} by ${r.getSender().getUid()}`),
    onMessageReactionAdded: (r) => log.push(`reaction ${r.getReaction().getReaction()} on ${r.getMessageId()}`),
  });
  c.addAgentListener("log", { onAgentEvent: (e) => log.push(`agent ${e.event.type}`) });
  await c.login("me", "key");
  await until(() => FakeWebSocket.instances.length === 1 && FakeWebSocket.last().sent.length === 1, "the auth frame");
  return { c, log, errors, calls: f.calls };
}

const text = (pos: number, id: number) => ({ type: "message.created", pos, conversationId: "user_alice_user_me", data: wireMessage(id) });

describe("real time", () => {
  test("authenticates in the first frame, then hands events to listeners in order, once", async () => {
    const { log, calls } = await connected();
    const ws = FakeWebSocket.last();
    expect(ws.url).toBe("ws://chat.test/chat/v1/ws");
    expect(ws.sent[0]).toEqual({ type: "auth", token: "token-of-me" });
    ws.ready(10);
    ws.event(text(11, 1));
    ws.event(text(11, 1)); // the same pos again
    ws.event({ type: "message.edited", pos: 12, data: wireMessage(1, { editedAt: "2026-01-01T00:00:01Z" }) });
    ws.frame({ type: "agent", conversationId: "c", agentId: "chef", runId: "r", event: { type: "RUN_STARTED" } });
    ws.event({ type: "receipt.read", pos: 13, data: { conversationId: "user_alice_user_me", uid: "alice", messageId: 1, at: "2026-01-01T00:00:00Z" } });
    ws.event({ type: "reaction.added", pos: 14, data: { messageId: 1, uid: "alice", reaction: "👍", reactedAt: "2026-01-01T00:00:00Z", conversationId: "user_alice_user_me" } });
    await until(() => log.length >= 7, "the listener calls");
    expect(log).toEqual(["connecting", "connected", "text 1 Name of alice", "edited 1", "agent RUN_STARTED", "read 1 by alice", "reaction 👍 on 1"]);
    // alice was looked up once, before her first message was handed on
    expect(calls.filter((x) => x.url.pathname === "/chat/v1/users/alice")).toHaveLength(1);
  });

  test("agents.changed frames reach onAgentsChanged in order with events, move no offset, and stop once removed", async () => {
    const { c, log } = await connected();
    const changed: string[] = [];
    c.addAgentListener("agents", new AgentListener({ onAgentsChanged: (id) => changed.push(id) }));
    const ws = FakeWebSocket.last();
    ws.ready(10);
    ws.frame({ type: "agents.changed", agentId: "chef" });
    ws.event(text(11, 1));
    ws.frame({ type: "agents.changed", agentId: "weather" });
    await until(() => changed.length === 2, "two agents.changed calls");
    expect(changed).toEqual(["chef", "weather"]);
    expect(log.filter((l) => l.startsWith("text"))).toEqual(["text 1 Name of alice"]);
    // the agent listener without onAgentsChanged ("log") was not called for them
    expect(log.filter((l) => l.startsWith("agent"))).toEqual([]);

    c.removeAgentListener("agents");
    ws.frame({ type: "agents.changed", agentId: "chef" });
    ws.event(text(12, 2));
    await until(() => log.includes("text 2 Name of alice"), "message 2");
    expect(changed).toEqual(["chef", "weather"]);

    // The frames carry no pos: a reconnect resumes from the last event.
    ws.drop(1006);
    await until(() => FakeWebSocket.instances.length === 2 && FakeWebSocket.last().sent.length === 1, "a new socket");
    expect(FakeWebSocket.last().sent[0]).toMatchObject({ resume: 12 });
  });

  test("reconnects after an abnormal close, resuming from the last processed pos; replays are dropped", async () => {
    const { log } = await connected();
    const first = FakeWebSocket.last();
    first.ready(10);
    first.event(text(11, 1));
    first.event(text(12, 2));
    first.drop(1006);
    await until(() => FakeWebSocket.instances.length === 2 && FakeWebSocket.last().sent.length === 1, "a new socket");
    const second = FakeWebSocket.last();
    expect(second.sent[0]).toEqual({ type: "auth", token: "token-of-me", resume: 12 });
    second.ready(14);
    second.event(text(12, 2)); // at-least-once: a replay of what was processed
    second.event(text(13, 3));
    second.event(text(14, 2)); // the same message under another pos
    await until(() => log.includes("text 3 Name of alice"), "message 3");
    expect(log.filter((l) => l.startsWith("text"))).toEqual(["text 1 Name of alice", "text 2 Name of alice", "text 3 Name of alice"]);
    expect(log.filter((l) => !l.startsWith("text"))).toEqual(["connecting", "connected", "connecting", "connected"]);
  });
});

describe("real time: agent runs followed across reconnections", () => {
  const part = (part: number, parts: number, events: object[]) => ({ type: "agent.replay", conversationId: "c", agentId: "chef", runId: "r", part, parts, events });

  test("followAgentRuns asks for the run in flight when ready and after every reconnection, until stopped", async () => {
    const { c } = await connected();
    const first = FakeWebSocket.last();
    const stop = c.followAgentRuns("c");
    const again = c.followAgentRuns("c"); // a second view of the same conversation
    expect(first.sent).toHaveLength(1); // not ready yet: asked once it is
    first.ready(10);
    await until(() => first.sent.length === 2, "the replay frame");
    expect(first.sent[1]).toEqual({ type: "replay", conversationId: "c" });
    expect(c.followAgentRuns("d")).toBeTypeOf("function");
    expect(first.sent[2]).toEqual({ type: "replay", conversationId: "d" }); // ready: asked at once
    first.drop(1006);
    await until(() => FakeWebSocket.instances.length === 2 && FakeWebSocket.last().sent.length === 1, "a new socket");
    const second = FakeWebSocket.last();
    stop();
    stop(); // twice is once
    second.ready(10);
    await until(() => second.sent.length === 3, "the replay frames again");
    expect(second.sent.slice(1)).toEqual([{ type: "replay", conversationId: "c" }, { type: "replay", conversationId: "d" }]);
    again();
    second.drop(1006);
    await until(() => FakeWebSocket.instances.length === 3 && FakeWebSocket.last().sent.length === 1, "a third socket");
    FakeWebSocket.last().ready(10);
    await until(() => FakeWebSocket.last().sent.length === 2, "the replay frame for d");
    expect(FakeWebSocket.last().sent.slice(1)).toEqual([{ type: "replay", conversationId: "d" }]);
  });

  test("a replay's parts reach the agent listeners in order once all came, then the live frames; a missing part drops the replay", async () => {
    const { log } = await connected();
    const ws = FakeWebSocket.last();
    ws.ready(10);
    ws.frame(part(1, 2, [{ type: "RUN_STARTED" }, { type: "TEXT_MESSAGE_START", messageId: "m" }]));
    ws.frame(part(2, 2, [{ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "Hello" }]));
    ws.frame({ type: "agent", conversationId: "c", agentId: "chef", runId: "r", event: { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "!" } });
    await until(() => log.length >= 6, "the replayed and live events");
    expect(log.slice(2)).toEqual(["agent RUN_STARTED", "agent TEXT_MESSAGE_START", "agent TEXT_MESSAGE_CONTENT", "agent TEXT_MESSAGE_CONTENT"]);
    ws.frame(part(1, 3, [{ type: "RUN_STARTED" }]));
    ws.frame(part(3, 3, [{ type: "TEXT_MESSAGE_END", messageId: "m" }])); // part 2 lost
    ws.frame({ type: "agent", conversationId: "c", agentId: "chef", runId: "r", event: { type: "RUN_FINISHED" } });
    await until(() => log.length >= 7, "the live event");
    expect(log.slice(6)).toEqual(["agent RUN_FINISHED"]);
  });
});

describe("real time: closes and reconnects", () => {
  test("4008 reconnects at once; 1001 and 1013 back off and resume", async () => {
    await connected();
    for (const code of [4008, 1001, 1013]) {
      const n = FakeWebSocket.instances.length;
      FakeWebSocket.last().ready(1);
      FakeWebSocket.last().drop(code);
      await until(() => FakeWebSocket.instances.length === n + 1 && FakeWebSocket.last().sent.length === 1, `a reconnect after ${code}`);
      expect(FakeWebSocket.last().sent[0]).toMatchObject({ resume: 1 });
    }
  });

  test.each([
    { name: "4001 stops: onConnectionError with ERR_AUTH_TOKEN_INVALID, onDisconnected, no reconnect", close: 4001, code: "ERR_AUTH_TOKEN_INVALID" },
    { name: "4009 (too many sockets: this, the oldest, was closed) stops too: reconnecting would close another", close: 4009, code: "ERR_TOO_MANY_SOCKETS" },
  ])("$name", async ({ close, code }) => {
    const { log, errors, c } = await connected();
    FakeWebSocket.last().ready(1);
    FakeWebSocket.last().drop(close);
    await until(() => log.includes("disconnected"), "onDisconnected");
    // A reconnect (its backoff is at most 2 ms here) would have been timed before this.
    await new Promise((r) => setTimeout(r, 20));
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(errors.map((e) => e.code)).toEqual([code]);
    expect(c.getConnectionStatus()).toBe("disconnected");
  });

  test("a failed attempt reports ERR_NETWORK and retries", async () => {
    const { errors } = await connected();
    FakeWebSocket.last().drop(1006); // before ready
    await until(() => FakeWebSocket.instances.length === 2, "a retry");
    expect(errors.map((e) => e.code)).toEqual(["ERR_NETWORK"]);
    expect(FakeWebSocket.last().sent.length === 0 || FakeWebSocket.last().sent[0]).toBeTruthy();
  });

  test("reset: onReset (or onConnected without it), and the offset moves to the reset pos", async () => {
    const { c, log } = await connected();
    const resets: string[] = [];
    c.addConnectionListener("reset", { onReset: () => resets.push("reset") });
    const ws = FakeWebSocket.last();
    ws.ready(100);
    ws.frame({ type: "reset", pos: 40 });
    ws.event(text(41, 1));
    await until(() => log.includes("text 1 Name of alice"), "the event after the reset");
    expect(resets).toEqual(["reset"]);
    expect(log.filter((l) => l === "connected")).toHaveLength(2); // ready + reset for the listener without onReset
    ws.drop(1006);
    await until(() => FakeWebSocket.instances.length === 2 && FakeWebSocket.last().sent.length === 1, "a reconnect");
    expect(FakeWebSocket.last().sent[0]).toMatchObject({ resume: 41 });
  });
});

describe("real time: typing, logout and disconnect", () => {
  test("typing indicators end by themselves, and are not ended twice", async () => {
    const { log } = await connected();
    const ws = FakeWebSocket.last();
    ws.ready(1);
    ws.event({ type: "typing.started", pos: 0, data: { uid: "alice", conversationId: "user_alice_user_me" } });
    await until(() => log.includes("typed alice"), "the typing timeout");
    ws.event({ type: "typing.ended", pos: 0, data: { uid: "alice", conversationId: "user_alice_user_me" } });
    ws.event({ type: "typing.started", pos: 0, data: { uid: "alice", conversationId: "group_g" } });
    ws.event({ type: "typing.ended", pos: 0, data: { uid: "alice", conversationId: "group_g" } });
    await until(() => log.filter((l) => l === "typed alice").length === 2, "the second end");
    await new Promise((r) => setTimeout(r, 50));
    expect(log.filter((l) => l.startsWith("typ"))).toEqual(["typing alice me", "typed alice", "typing alice g", "typed alice"]);
  });

  test("typing goes out as a socket frame once ready", async () => {
    const { c } = await connected();
    const ws = FakeWebSocket.last();
    ws.ready(1);
    const { TypingIndicator } = await import("./models/receipt");
    c.startTyping(new TypingIndicator("alice", "user"));
    c.endTyping(new TypingIndicator("g1", "group"));
    expect(ws.sent.slice(1)).toEqual([
      { type: "typing", conversationId: "user_alice_user_me", started: true },
      { type: "typing", conversationId: "group_g1", started: false },
    ]);
  });

  test("logout closes the socket with 1000, tells onDisconnected, and nothing more arrives", async () => {
    const { c, log } = await connected();
    const ws = FakeWebSocket.last();
    ws.ready(1);
    await c.logout();
    expect(ws.closedWith).toBe(1000);
    ws.event(text(2, 1));
    await new Promise((r) => setTimeout(r, 10));
    expect(log).toEqual(["connecting", "connected", "disconnected"]);
    await expect(c.getUser("x")).rejects.toMatchObject({ code: "ERR_NOT_LOGGED_IN" });
  });

  test("disconnect() and connect() resume where the session stopped", async () => {
    const { c } = await connected();
    FakeWebSocket.last().ready(5);
    FakeWebSocket.last().event(text(6, 1));
    c.disconnect();
    expect(c.getConnectionStatus()).toBe("disconnected");
    c.connect();
    await until(() => FakeWebSocket.instances.length === 2 && FakeWebSocket.last().sent.length === 1, "the new socket");
    expect(FakeWebSocket.last().sent[0]).toMatchObject({ resume: 6 });
  });
});

describe("group events", () => {
  const member = (pos: number, seq: number, type: string, data: Record<string, unknown>, target?: string) => ({
    type,
    pos,
    seq,
    conversationId: "group_g",
    targetUid: target,
    data: { guid: "g", ...data },
  });
  const action = (pos: number, seq: number, id: number, data: Record<string, unknown>) => ({
    type: "message.created",
    pos,
    seq,
    conversationId: "group_g",
    data: wireMessage(id, { conversationId: "group_g", receiver: "g", receiverType: "group", category: "action", type: "groupMember", sender: data["by"], data: { guid: "g", ...data } }),
  });

  test("each membership change calls the group listener once, with the action message when it arrived", async () => {
    const { c } = await connected({ g: 7 });
    const calls: string[] = [];
    const fmt = (a: Action, u: User, g: Group) => `${a.getId()} ${a.getAction()} ${u.getUid()} ${g.getMembersCount()} ${g.getHasJoined()}`;
    c.addGroupListener("g", {
      onGroupMemberJoined: (a, u, g) => calls.push(`joined ${fmt(a, u, g)}`),
      onGroupMemberKicked: (a, u, by, g) => calls.push(`kicked ${fmt(a, u, g)} by ${by.getUid()}`),
      onGroupMemberUnbanned: (a, u, by, g) => calls.push(`unbanned ${fmt(a, u, g)} by ${by.getUid()}`),
      onGroupMemberScopeChanged: (a, u, n, o, g) => calls.push(`scope ${fmt(a, u, g)} ${o}->${n}`),
    });
    const ws = FakeWebSocket.last();
    ws.ready(1);
    // arrival: member event first, then its action message
    ws.event(member(2, 1, "member.joined", { action: "joined", by: "me", on: "me", scope: "participant" }));
    ws.event(action(3, 2, 50, { action: "joined", by: "me", on: "me", scope: "participant" }));
    // departure of someone else: action message first, then the member event
    ws.event(action(4, 3, 51, { action: "kicked", by: "alice", on: "bob" }));
    ws.event(member(5, 4, "member.kicked", { action: "kicked", by: "alice", on: "bob" }, "bob"));
    // scope change
    ws.event(action(6, 5, 52, { action: "scopeChanged", by: "alice", on: "me", scope: "moderator", oldScope: "participant" }));
    ws.event(member(7, 6, "member.scope_changed", { action: "scopeChanged", by: "alice", on: "me", scope: "moderator", oldScope: "participant" }, "me"));
    // a targeted event alone: unbanned while not a member
    ws.event(member(8, 9, "member.unbanned", { action: "unbanned", by: "alice", on: "me" }, "me"));
    await until(() => calls.length === 4, "four calls");
    await new Promise((r) => setTimeout(r, 10));
    expect(calls).toEqual([
      "joined 50 joined me 7 true",
      "kicked 51 kicked bob 7 true by alice",
      "scope 52 scopeChanged me 7 true participant->moderator",
      "unbanned 0 unbanned me 7 true by alice",
    ]);
  });

  test("group created, updated and deleted", async () => {
    const { c } = await connected();
    const calls: string[] = [];
    c.addGroupListener("g", {
      onGroupCreated: (g) => calls.push(`created ${g.getGuid()} ${g.getHasJoined()}`),
      onGroupUpdated: (g) => calls.push(`updated ${g.getName()}`),
      onGroupDeleted: (g) => calls.push(`deleted ${g.getGuid()} ${g.getHasJoined()}`),
    });
    const ws = FakeWebSocket.last();
    ws.ready(1);
    ws.event({ type: "group.created", pos: 2, conversationId: "group_n", data: { guid: "n", name: "N", type: "public", owner: "me", membersCount: 1 } });
    ws.event({ type: "group.updated", pos: 3, conversationId: "group_n", data: { guid: "n", name: "New name", type: "public", owner: "me", membersCount: 1 } });
    ws.event({ type: "group.deleted", pos: 4, targetUid: "me", data: { guid: "n", by: "me" } });
    await until(() => calls.length === 3, "three calls");
    expect(calls).toEqual(["created n true", "updated New name", "deleted n false"]);
  });
});
