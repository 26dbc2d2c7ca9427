// The proxy against a real `agentry dev` (scripted model, SQLite chat): the page reaches the
// chat service's REST API, the runtime's /api and the WebSocket on its own origin.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDev, type DevProcess } from "../agentry.mjs";
import { openCase, useBrowser } from "./harness";

let dev: DevProcess;
beforeAll(async () => {
  dev = await startDev({ env: { OPENAI_API_KEY: "" } }); // the scripted dev model
});
afterAll(async () => {
  await dev?.stop();
});
const b = useBrowser({ target: () => dev.base });

describe("page server proxy to agentry dev", () => {
  test("REST, /api and the WebSocket on the page's origin; down and back", async () => {
    const page = await b.newPage();
    await openCase(page, "smoke");

    const health = await page.evaluate(async () => {
      const r = await fetch("/chat/v1/healthz");
      return { status: r.status, body: await r.text() };
    });
    expect(health.status, health.body).toBe(200);

    const agents = await page.evaluate(async () => {
      const r = await fetch("/api/agents");
      return { status: r.status, body: await r.text() };
    });
    expect(agents.status, agents.body).toBe(200);
    expect(agents.body).toContain("chef");

    // A user logs in from the page (dev App ID and Auth Key), then the page's socket
    // authenticates on the proxied /chat/v1/ws.
    await dev.createUser("alice", "Alice");
    const login = await page.evaluate(
      async ([appId, authKey]) => {
        const r = await fetch("/chat/v1/login", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ appId, uid: "alice", authKey }),
        });
        return { status: r.status, body: await r.text() };
      },
      [dev.appId, dev.authKey] as const,
    );
    expect(login.status, login.body).toBe(200);
    const { authToken } = JSON.parse(login.body) as { authToken: string };
    expect(authToken).toBeTruthy();

    const ready = await page.evaluate(
      (token) =>
        new Promise<unknown>((resolve, reject) => {
          const ws = new WebSocket(`ws://${location.host}/chat/v1/ws`);
          (window as unknown as { ws: WebSocket }).ws = ws;
          ws.onopen = () => ws.send(JSON.stringify({ type: "auth", token }));
          ws.onmessage = (m) => resolve(JSON.parse(String(m.data)));
          ws.onclose = (e) => reject(new Error(`closed ${e.code} ${e.reason}`));
        }),
      authToken,
    );
    expect(ready).toMatchObject({ type: "ready", uid: "alice" });

    // A network blip: the proxy drops the socket, the page sees an abnormal close.
    await page.evaluate(() => {
      const w = window as unknown as { ws: WebSocket; wsClosed: Promise<number> };
      w.wsClosed = new Promise((r) => (w.ws.onclose = (e) => r(e.code)));
    });
    b.server.dropConnections();
    expect(await page.evaluate(() => (window as unknown as { wsClosed: Promise<number> }).wsClosed)).toBe(1006);

    // The service "down" (502, no WebSocket) and back.
    b.server.setTarget(null);
    expect(await page.evaluate(() => fetch("/chat/v1/healthz").then((r) => r.status))).toBe(502);
    const refused = await page.evaluate(
      () =>
        new Promise<string>((r) => {
          const ws = new WebSocket(`ws://${location.host}/chat/v1/ws`);
          ws.onopen = () => r("open");
          ws.onerror = () => r("error");
        }),
    );
    expect(refused).toBe("error");
    b.server.setTarget(dev.base);
    expect(await page.evaluate(() => fetch("/chat/v1/healthz").then((r) => r.status))).toBe(200);
  });
});
