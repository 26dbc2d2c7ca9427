import { afterEach, describe, expect, test, vi } from "vitest";
import { ChatException } from "./exception";
import { Http } from "./http";

const limited = (retryAfter?: string) =>
  new Response(JSON.stringify({ error: { code: "ERR_RATE_LIMITED", message: "too many requests from this user" } }), {
    status: 429,
    headers: retryAfter === undefined ? { "content-type": "application/json" } : { "content-type": "application/json", "retry-after": retryAfter },
  });
const ok = () => new Response(JSON.stringify({ uid: "alice" }), { status: 200, headers: { "content-type": "application/json" } });

describe("Http and the service's rate limit", () => {
  afterEach(() => vi.useRealTimers());

  test("a 429 is sent again after Retry-After, with the same method and body", async () => {
    vi.useFakeTimers();
    const answers = [limited("2"), limited(), ok()];
    const calls: { at: number; method: string | undefined; body: unknown }[] = [];
    const http = new Http("http://chat.test/chat/v1", async (_url, init) => {
      calls.push({ at: Date.now(), method: init?.method, body: init?.body });
      return answers.shift()!;
    }, () => "tok");
    const start = Date.now();
    const p = http.json<{ uid: string }>("POST", "/messages", { body: { text: "hi" } });
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toHaveLength(1); // still waiting out Retry-After: 2
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(1000); // no Retry-After: one second
    await expect(p).resolves.toEqual({ uid: "alice" });
    expect(calls.map((c) => c.at - start)).toEqual([0, 2000, 3000]);
    expect(new Set(calls.map((c) => `${c.method} ${String(c.body)}`))).toEqual(new Set(['POST {"text":"hi"}']));
  });

  test("a session logged out while waiting does not send its old token again", async () => {
    vi.useFakeTimers();
    let token: string | undefined = "tok";
    const sent: (string | undefined)[] = [];
    const http = new Http("http://chat.test/chat/v1", async (_url, init) => {
      sent.push((init?.headers as Record<string, string>)["authorization"]);
      return limited("1");
    }, () => token);
    const seen = http.json("GET", "/me").catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    token = undefined; // Chat.logout
    await vi.advanceTimersByTimeAsync(1000);
    const err = await seen;
    expect((err as ChatException).code).toBe("ERR_NOT_LOGGED_IN");
    expect(sent).toEqual(["Bearer tok"]);
  });

  test("still limited after three more tries: the caller gets ERR_RATE_LIMITED; waits are capped", async () => {
    vi.useFakeTimers();
    let n = 0;
    const http = new Http("http://chat.test/chat/v1", async () => {
      n++;
      return limited("3600");
    }, () => "tok");
    const p = http.json("GET", "/me");
    const seen = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(30_000); // three waits of at most 10 s
    const err = await seen;
    expect(err).toBeInstanceOf(ChatException);
    expect((err as ChatException).code).toBe("ERR_RATE_LIMITED");
    expect(n).toBe(4);
  });
});

describe("Http and network failures", () => {
  afterEach(() => vi.useRealTimers());

  test("an idempotent request (retryNetwork) is sent again, with the same body, after a lost answer", async () => {
    vi.useFakeTimers();
    const bodies: unknown[] = [];
    let n = 0;
    const http = new Http("http://chat.test/chat/v1", async (_url, init) => {
      bodies.push(init?.body);
      if (n++ === 0) throw new TypeError("fetch failed"); // the connection dropped after sending
      return ok();
    }, () => "tok");
    const p = http.json<{ uid: string }>("POST", "/messages", { body: { text: "hi", muid: "m1" }, retryNetwork: true });
    await vi.advanceTimersByTimeAsync(500);
    await expect(p).resolves.toEqual({ uid: "alice" });
    expect(bodies).toEqual(['{"text":"hi","muid":"m1"}', '{"text":"hi","muid":"m1"}']);
  });

  test("an idempotent request is sent again after a proxy's 502-504; any other fails at once", async () => {
    vi.useFakeTimers();
    let n = 0;
    const statuses = [502, 504];
    const http = new Http("http://chat.test/chat/v1", async () => {
      const status = statuses[n++];
      return status ? new Response("<html>bad gateway</html>", { status }) : ok();
    }, () => "tok");
    const p = http.json<{ uid: string }>("POST", "/messages", { body: { text: "hi", muid: "m2" }, retryNetwork: true });
    await vi.advanceTimersByTimeAsync(2000);
    await expect(p).resolves.toEqual({ uid: "alice" });
    expect(n).toBe(3);
    n = 0;
    const err = await http.json("POST", "/groups", { body: {} }).catch((e: unknown) => e);
    expect([(err as ChatException).code, (err as ChatException).details?.["status"], n]).toEqual(["ERR_NETWORK", 502, 1]);
  });

  test("any other request fails at once with ERR_NETWORK; an idempotent one after two more tries", async () => {
    let n = 0;
    const http = new Http("http://chat.test/chat/v1", async () => {
      n++;
      throw new TypeError("fetch failed");
    }, () => "tok");
    const err = await http.json("POST", "/groups", { body: {} }).catch((e: unknown) => e);
    expect((err as ChatException).code).toBe("ERR_NETWORK");
    expect(n).toBe(1);
    vi.useFakeTimers();
    const again = http.json("POST", "/messages", { body: {}, retryNetwork: true }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(2000);
    expect(((await again) as ChatException).code).toBe("ERR_NETWORK");
    expect(n).toBe(4);
  });
});
