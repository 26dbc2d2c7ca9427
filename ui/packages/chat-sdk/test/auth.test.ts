// Logging in both ways, sessions, and the ChatException codes against a real agentry chat.
import { describe, expect, test } from "vitest";
import { Chat, ChatClient, ChatException, User } from "../src/index";
import { TrackedWebSocket, until, useAgentry } from "./harness";

const h = useAgentry();

describe("login", () => {
  test("with the Auth Key (POST /login) and with an auth token (GET /me)", async () => {
    await h.proc.createUser("alice", "Alice Liddell", { avatar: "https://example.com/a.png", role: "tester" });
    const c1 = new ChatClient();
    await c1.init(h.proc.appId, { host: h.proc.base, webSocket: TrackedWebSocket });
    const u1 = await c1.login("alice", h.proc.authKey);
    expect([u1.getUid(), u1.getName(), u1.getAvatar(), u1.getRole(), u1.getKind()]).toEqual(["alice", "Alice Liddell", "https://example.com/a.png", "tester", "user"]);
    expect((await c1.getLoggedinUser())?.getUid()).toBe("alice");

    const c2 = new ChatClient();
    await c2.init(h.proc.appId, { host: `${h.proc.base}/`, webSocket: TrackedWebSocket });
    const u2 = await c2.login(await h.proc.mintToken("alice"));
    expect(u2.getName()).toBe("Alice Liddell");
    await until(() => c1.getConnectionStatus() === "connected" && c2.getConnectionStatus() === "connected", "both sockets are up");
    await c1.logout();
    await c2.logout();
    expect(await c1.getLoggedinUser()).toBeNull();
  });

  test("logging in twice at once (React strict mode) gives one session and one socket", async () => {
    await h.proc.createUser("strict").catch(() => undefined);
    const c = new ChatClient();
    await c.init(h.proc.appId, { host: h.proc.base, webSocket: TrackedWebSocket });
    await c.init(h.proc.appId, { host: h.proc.base, webSocket: TrackedWebSocket });
    const before = TrackedWebSocket.all.length;
    const [a, b] = await Promise.all([c.login("strict", h.proc.authKey), c.login("strict", h.proc.authKey)]);
    expect(a).toBe(b);
    expect(await c.login("strict", h.proc.authKey)).toBe(a);
    await until(() => c.getConnectionStatus() === "connected", "connected");
    expect(TrackedWebSocket.all.length - before).toBe(1);
    await c.logout();
  });

  test("logout closes the socket, tells onDisconnected, and later calls fail with ERR_NOT_LOGGED_IN", async () => {
    const s = await h.client("leaver");
    await s.c.logout();
    await s.rec.until((e) => e.name === "onDisconnected");
    expect(s.c.getConnectionStatus()).toBe("disconnected");
    await expect(s.c.getGroup("x")).rejects.toMatchObject({ code: "ERR_NOT_LOGGED_IN" });
    await expect(s.c.sendMessage(new Chat.TextMessage("x", "hi", "user"))).rejects.toBeInstanceOf(ChatException);
  });

  test("logout revokes the session's token; the user's other session stays connected", async () => {
    await h.proc.createUser("twice").catch(() => undefined);
    const me = (token: string) => fetch(`${h.proc.api}/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    const [t1, t2] = [await h.proc.mintToken("twice"), await h.proc.mintToken("twice")];
    const phone = await h.client("twice", { token: true });
    const c1 = new ChatClient();
    await c1.init(h.proc.appId, { host: h.proc.base, webSocket: TrackedWebSocket });
    await c1.login(t1);
    const c2 = new ChatClient();
    await c2.init(h.proc.appId, { host: h.proc.base, webSocket: TrackedWebSocket });
    await c2.login(t2);
    let received = 0;
    c2.addMessageListener("count", { onTextMessageReceived: () => received++ });
    await until(() => c1.getConnectionStatus() === "connected" && c2.getConnectionStatus() === "connected", "both sockets are up");
    await c1.logout();
    expect(await me(t1)).toBe(401);
    expect(await me(t2)).toBe(200);
    const bob = await h.client("bob");
    await bob.c.sendMessage(new Chat.TextMessage("twice", "still there?", "user"));
    await until(() => received === 1, "the message on the other session");
    expect(c2.getConnectionStatus()).toBe("connected");
    expect(phone.c.getConnectionStatus()).toBe("connected");
    await c2.logout();
    expect(await me(t2)).toBe(401);
  });

  test("createUser with the Auth Key (development)", async () => {
    const c = new ChatClient();
    await c.init(h.proc.appId, { host: h.proc.base, webSocket: TrackedWebSocket });
    const u = new User("newbie", "New Bie");
    u.setMetadata({ team: "blue" });
    const made = await c.createUser(u, h.proc.authKey);
    expect([made.getUid(), made.getName(), made.getMetadata()]).toEqual(["newbie", "New Bie", { team: "blue" }]);
    await expect(c.createUser(u, h.proc.authKey)).rejects.toMatchObject({ code: "ERR_UID_ALREADY_EXISTS" });
    await expect(c.createUser(new User("other"), "wrong-key")).rejects.toMatchObject({ code: "ERR_API_KEY_INVALID" });
  });
});

describe("ChatException", () => {
  test("carries the service's codes", async () => {
    const s = await h.client("errors");
    const err = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (e) {
        expect(e).toBeInstanceOf(ChatException);
        return (e as ChatException).code;
      }
      throw new Error("no error");
    };
    expect(await err(s.c.getGroup("nope"))).toBe("ERR_GUID_NOT_FOUND");
    expect(await err(s.c.getUser("nobody"))).toBe("ERR_UID_NOT_FOUND");
    expect(await err(s.c.sendMessage(new Chat.TextMessage("errors", "   ", "user")))).toBe("ERR_VALIDATION");
    expect(await err(s.c.getMessageDetails(999_999))).toBe("ERR_MESSAGE_NOT_FOUND");
    expect(await err(s.c.deleteMessage(0))).toBe("ERR_VALIDATION");
    await s.c.createGroup(new Chat.Group("err-group", "Errors", "public"));
    expect(await err(s.c.createGroup(new Chat.Group("err-group", "Errors", "public")))).toBe("ERR_GUID_ALREADY_EXISTS");
    expect(await err(s.c.leaveGroup("err-group"))).toBe("ERR_OWNER_CANNOT_LEAVE");
    const other = await h.client("outsider");
    expect(await err(other.c.sendMessage(new Chat.TextMessage("err-group", "hi", "group")))).toBe("ERR_NOT_A_MEMBER");
    const e = (await s.c.getGroup("nope").catch((x: unknown) => x)) as ChatException;
    expect([e.message.length > 0, e.details?.["status"]]).toEqual([true, 404]);
  });

  test("wrong credentials", async () => {
    await h.proc.createUser("cred").catch(() => undefined);
    const c = new ChatClient();
    await c.init(h.proc.appId, { host: h.proc.base, webSocket: TrackedWebSocket });
    await expect(c.login("cred", "wrong-key")).rejects.toMatchObject({ code: "ERR_AUTH_TOKEN_INVALID" });
    await expect(c.login("not-a-user", h.proc.authKey)).rejects.toMatchObject({ code: "ERR_UID_NOT_FOUND" });
    await expect(c.login("not-a-valid-token")).rejects.toMatchObject({ code: "ERR_AUTH_TOKEN_INVALID" });
    const wrongApp = new ChatClient();
    await wrongApp.init("another-app", { host: h.proc.base, webSocket: TrackedWebSocket });
    await expect(wrongApp.login("cred", h.proc.authKey)).rejects.toMatchObject({ code: "ERR_AUTH_TOKEN_INVALID" });
  });

  test("ERR_NETWORK when the service cannot be reached, ERR_NOT_INITIALIZED before init", async () => {
    const c = new ChatClient();
    await expect(c.login("x", "y")).rejects.toMatchObject({ code: "ERR_NOT_INITIALIZED" });
    await c.init("test", { host: "http://127.0.0.1:9", webSocket: TrackedWebSocket });
    await expect(c.login("x", "y")).rejects.toMatchObject({ code: "ERR_NETWORK" });
  });

  test("revoked tokens: the socket is closed with 4001, onConnectionError and onDisconnected, no reconnect; login starts afresh", async () => {
    const s = await h.client("revoked", { token: true });
    const sockets = TrackedWebSocket.all.length;
    await h.proc.call("DELETE", "/users/revoked/auth_tokens");
    const e = await s.rec.until((x) => x.name === "onConnectionError");
    expect((e.args[0] as ChatException).code).toBe("ERR_AUTH_TOKEN_INVALID");
    await s.rec.until((x) => x.name === "onDisconnected");
    // No reconnect: longer than the harness's largest reconnect backoff (400 ms), no new socket.
    await new Promise((r) => setTimeout(r, 600));
    expect(TrackedWebSocket.all.length).toBe(sockets);
    expect(s.c.getConnectionStatus()).toBe("disconnected");
    // The session is over: nothing is sent with the dead token.
    expect(await s.c.getLoggedinUser()).toBeNull();
    await expect(s.c.getUser("revoked")).rejects.toMatchObject({ code: "ERR_NOT_LOGGED_IN" });

    // Logging in again as the same user gets a new token and a new socket (it used to return
    // the dead session), and listeners hear of the end once.
    const connectedBefore = s.rec.named("onConnected").length;
    const user = await s.c.login("revoked", h.proc.authKey);
    expect(user.getUid()).toBe("revoked");
    await s.rec.until((x) => x.name === "onConnected" && s.rec.named("onConnected").length > connectedBefore);
    expect(TrackedWebSocket.all.length).toBe(sockets + 1);
    expect((await s.c.getUser("revoked")).getUid()).toBe("revoked");
    expect(s.rec.named("onDisconnected")).toHaveLength(1);
  });

  test("an admin deactivates a person: their socket closes with 4001, login is refused with ERR_USER_DEACTIVATED until reactivated", async () => {
    await h.proc.createUser("boss", "Boss", { role: "admin" }).catch(() => undefined);
    const boss = new ChatClient();
    await boss.init(h.proc.appId, { host: h.proc.base, webSocket: TrackedWebSocket });
    await boss.login(await h.proc.mintToken("boss"));
    const s = await h.client("leaving", { token: true });
    const u = await boss.setUserDeactivated("leaving", true);
    expect(u.isDeactivated()).toBe(true);
    const e = await s.rec.until((x) => x.name === "onConnectionError");
    expect((e.args[0] as ChatException).code).toBe("ERR_AUTH_TOKEN_INVALID");
    await expect(s.c.login("leaving", h.proc.authKey)).rejects.toMatchObject({ code: "ERR_USER_DEACTIVATED" });
    // Not an admin's to do for a user.
    const other = await h.client("bystander");
    await expect(other.c.setUserDeactivated("boss", true)).rejects.toMatchObject({ code: "ERR_PERMISSION_DENIED" });
    expect((await boss.setUserDeactivated("leaving", false)).isDeactivated()).toBe(false);
    expect((await s.c.login("leaving", h.proc.authKey)).getUid()).toBe("leaving");
    await boss.logout();
  });

  test("an admin invites a person and changes roles: the code signs the person in once, with the password they chose", async () => {
    await h.proc.createUser("chief", "Chief", { role: "admin" }).catch(() => undefined);
    const chief = new ChatClient();
    await chief.init(h.proc.appId, { host: h.proc.base, webSocket: TrackedWebSocket });
    await chief.login(await h.proc.mintToken("chief"));
    const inv = await chief.createInvitation({ uid: "newcomer", name: "New Comer" });
    expect(inv.user.getUid()).toBe("newcomer");
    expect(inv.code.length).toBeGreaterThan(40);
    expect(inv.expiresAt).toBeGreaterThan(Date.now() + 6 * 24 * 3600 * 1000);
    const accept = (password: string) => fetch(`${h.proc.base}/chat/v1/auth/invitation/accept`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: inv.code, password }),
    });
    const first = await accept("a long enough password");
    expect(first.status).toBe(200);
    const session = (await first.json()) as { authToken: string };
    expect((await accept("another long password")).status).toBe(404);
    const c = new ChatClient();
    await c.init(h.proc.appId, { host: h.proc.base, webSocket: TrackedWebSocket });
    expect((await c.login(session.authToken)).getUid()).toBe("newcomer");

    expect((await chief.setUserRole("newcomer", "admin")).getRole()).toBe("admin");
    await expect(c.setUserRole("chief", "")).resolves.toBeDefined(); // newcomer is an admin now
    await expect(chief.setUserRole("newcomer", "")).rejects.toMatchObject({ code: "ERR_PERMISSION_DENIED" }); // chief is not any more
    await expect(c.createInvitation({ uid: "x", name: "X", expiresIn: 5 })).rejects.toMatchObject({ code: "ERR_VALIDATION" });
    await c.logout();
    await chief.logout();
  });
});
