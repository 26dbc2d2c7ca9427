// resume() keeps the remembered token unless the service refuses it: a network failure or a 5xx
// during a restart must not log the user out for good.
import { Chat } from "@agentry/chat-sdk";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { isAuthFailure, nameOf, resume } from "./session";

const { login } = vi.hoisted(() => ({ login: vi.fn() }));

vi.mock("@agentry/chat-sdk", async (importOriginal) => {
  const orig = await importOriginal<typeof import("@agentry/chat-sdk")>();
  return { ...orig, Chat: { ...orig.Chat, login } };
});

const key = "agentry.web.session";

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  };
}

describe("resume", () => {
  beforeEach(() => {
    vi.stubGlobal("localStorage", memoryStorage());
    localStorage.setItem(key, JSON.stringify({ token: "tok-1" }));
    login.mockReset();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("logs in with the remembered token", async () => {
    const user = { getUid: () => "alice" };
    login.mockResolvedValue(user);
    await expect(resume()).resolves.toBe(user);
    expect(login).toHaveBeenCalledWith("tok-1");
    expect(localStorage.getItem(key)).toBe(JSON.stringify({ token: "tok-1" }));
  });

  it("forgets the token the service refuses (401)", async () => {
    login.mockRejectedValue(new Chat.ChatException("ERR_AUTH_TOKEN_INVALID", "the auth token is unknown, expired or revoked", { status: 401 }));
    await expect(resume()).resolves.toBeUndefined();
    expect(localStorage.getItem(key)).toBeNull();
  });

  it("keeps the token and throws on a network failure", async () => {
    const err = new Chat.ChatException(Chat.SDK_ERROR.NETWORK, "the chat service is unreachable (HTTP 502)", { status: 502 });
    login.mockRejectedValue(err);
    await expect(resume()).rejects.toBe(err);
    expect(localStorage.getItem(key)).toBe(JSON.stringify({ token: "tok-1" }));
  });

  it("keeps the token and throws on a server error", async () => {
    login.mockRejectedValue(new Chat.ChatException("ERR_SERVICE_UNAVAILABLE", "the store is down", { status: 503 }));
    await expect(resume()).rejects.toThrow("the store is down");
    expect(localStorage.getItem(key)).toBe(JSON.stringify({ token: "tok-1" }));
  });

  it("without a remembered token: nothing to resume", async () => {
    localStorage.clear();
    await expect(resume()).resolves.toBeUndefined();
    expect(login).not.toHaveBeenCalled();
  });
});

describe("isAuthFailure", () => {
  it("is the refused credentials only", () => {
    expect(isAuthFailure(new Chat.ChatException("ERR_AUTH_TOKEN_INVALID", "x"))).toBe(true);
    expect(isAuthFailure(new Chat.ChatException("ERR_INTERNAL", "x", { status: 401 }))).toBe(true);
    expect(isAuthFailure(new Chat.ChatException(Chat.SDK_ERROR.NETWORK, "x"))).toBe(false);
    expect(isAuthFailure(new Chat.ChatException("ERR_INTERNAL", "x", { status: 500 }))).toBe(false);
    expect(isAuthFailure(new Error("boom"))).toBe(false);
  });
});

describe("nameOf", () => {
  it("makes a display name of a new user id", () => {
    expect(nameOf("dave")).toBe("Dave");
    expect(nameOf("mary-ann_o.neil")).toBe("Mary Ann O Neil");
    expect(nameOf("--")).toBe("--");
  });
});
