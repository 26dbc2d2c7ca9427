import { beforeEach, describe, expect, test } from "vitest";
import { ChatClient } from "./client";
import type { FetchLike } from "./http";
import { directoryRoutes, fakeFetch, FakeWebSocket, loginRoute, route, until } from "./testing/fakes";

beforeEach(() => {
  FakeWebSocket.instances = [];
});

/** A client logged in as "me" over fetch, with its socket ready. */
async function loggedIn(fetch: FetchLike) {
  const c = new ChatClient();
  const log: string[] = [];
  await c.init("app", { host: "http://chat.test", fetch, webSocket: FakeWebSocket, reconnect: { baseMs: 1, maxMs: 2 } });
  c.addConnectionListener("log", { onDisconnected: () => log.push("disconnected") });
  await c.login("me", "key");
  await until(() => FakeWebSocket.instances.length === 1 && FakeWebSocket.last().sent.length === 1, "the auth frame");
  FakeWebSocket.last().ready(1);
  return { c, log, ws: FakeWebSocket.last() };
}

async function expectEnded(c: ChatClient, ws: FakeWebSocket, log: string[]) {
  expect(ws.closedWith).toBe(1000);
  expect(await c.getLoggedinUser()).toBeNull();
  expect(log).toEqual(["disconnected"]);
  await expect(c.getUser("x")).rejects.toMatchObject({ code: "ERR_NOT_LOGGED_IN" });
}

describe("logout", () => {
  test("revokes the session's token with POST /logout, then ends the session", async () => {
    const f = fakeFetch(loginRoute, route("POST", "/logout", () => undefined, 204), ...directoryRoutes());
    const { c, log, ws } = await loggedIn(f.fetch);
    await c.logout();
    const calls = f.calls.filter((x) => x.url.pathname === "/chat/v1/logout");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.method).toBe("POST");
    expect(calls[0]?.headers["authorization"]).toBe("Bearer token-of-me");
    await expectEnded(c, ws, log);
  });

  test("a refused token (401) still ends the local session, and logout does not throw", async () => {
    const refused = route("POST", "/logout", () => ({ error: { code: "ERR_AUTH_TOKEN_INVALID", message: "revoked" } }), 401);
    const f = fakeFetch(loginRoute, refused, ...directoryRoutes());
    const { c, log, ws } = await loggedIn(f.fetch);
    await expect(c.logout()).resolves.toBeUndefined();
    await expectEnded(c, ws, log);
  });

  test("a network error still ends the local session, and logout does not throw", async () => {
    const f = fakeFetch(loginRoute, ...directoryRoutes());
    const fetch: FetchLike = (input, init) => (new URL(input).pathname === "/chat/v1/logout" ? Promise.reject(new TypeError("fetch failed")) : f.fetch(input, init));
    const { c, log, ws } = await loggedIn(fetch);
    await expect(c.logout()).resolves.toBeUndefined();
    await expectEnded(c, ws, log);
  });

  test("without a session it sends nothing and resolves", async () => {
    const f = fakeFetch(loginRoute, ...directoryRoutes());
    const c = new ChatClient();
    await expect(c.logout()).resolves.toBeUndefined(); // not even initialised
    await c.init("app", { host: "http://chat.test", fetch: f.fetch, webSocket: FakeWebSocket });
    await expect(c.logout()).resolves.toBeUndefined();
    expect(f.calls).toHaveLength(0);
  });

  test("a login made while the logout request is pending keeps its session", async () => {
    let answer: (() => void) | undefined;
    const f = fakeFetch(loginRoute, ...directoryRoutes());
    const fetch: FetchLike = (input, init) =>
      new URL(input).pathname === "/chat/v1/logout"
        ? new Promise<Response>((resolve) => (answer = () => resolve(new Response(null, { status: 204 }))))
        : f.fetch(input, init);
    const { c } = await loggedIn(fetch);
    const out = c.logout();
    expect(await c.getLoggedinUser()).toBeNull(); // ended at once
    const u = await c.login("you", "key");
    await until(() => answer !== undefined, "the logout request");
    answer?.();
    await out;
    expect((await c.getLoggedinUser())?.getUid()).toBe(u.getUid());
  });
});
