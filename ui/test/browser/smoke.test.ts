// The pipeline itself: page build, server, chromium, a case, recorded events, axe, screenshot.
import { statSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { axe, events, formatViolations, openCase, pageErrors, screenshot, useBrowser, waitForEvent } from "./harness";

describe("smoke case", () => {
  const b = useBrowser();

  test("mounts with its params inside .chat, records callbacks, passes axe, screenshots", async () => {
    const page = await b.newPage();
    await openCase(page, "smoke", { greeting: "Hi" });
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Hi from the smoke case");
    expect(await page.locator("#root > .chat .smoke").count()).toBe(1);
    expect(await page.getByTestId("host").textContent()).toBe(b.server.url);

    await page.getByRole("button", { name: "Clicked 0 times" }).click();
    await page.getByRole("button", { name: "Clicked 1 times" }).click();
    const second = await waitForEvent(page, "onClick", { count: 2 });
    expect(second.args[0]).toBe(2);
    expect(second.args[1]).toEqual({ event: "click", target: "<button>" });
    expect((await events(page)).map((e) => e.name)).toEqual(["onClick", "onClick"]);

    const violations = await axe(page);
    expect(violations, formatViolations(violations)).toEqual([]);

    const png = await screenshot(page, "smoke/smoke");
    expect(statSync(png).size).toBeGreaterThan(1000);
    expect(pageErrors(page)).toEqual([]);
  });

  test("an unknown case fails with the list of cases", async () => {
    const page = await b.newPage();
    await expect(openCase(page, "no-such-case")).rejects.toThrow(/no case "no-such-case"; cases: .*smoke/);
  });

  test("the server serves the page for client-side paths and 404s missing assets", async () => {
    const page = await b.newPage();
    expect((await page.goto("/some/route"))?.status()).toBe(200);
    expect((await page.goto("/assets/missing.js"))?.status()).toBe(404);
    // Nothing to proxy to: the chat service is "down".
    expect((await page.goto("/chat/v1/healthz"))?.status()).toBe(502);
  });
});
