// AI features on the real ChatMessageList against `agentry dev` with an assistant chosen
// (PUT /ai/assistant: the chef, answered by the scripted dev model, whose answers are generic
// text): conversation starters in an empty conversation, smart replies after the delay for a
// message with a keyword, translation into the browser's language; nothing while AI is off.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDev, type DevProcess } from "../agentry.mjs";
import { expectAccessible, expectNoErrors, openCase, responded, screenshot, settled, useBrowser, waitForEvent } from "./harness";

let dev: DevProcess;
const tokens: Record<string, string> = {};
beforeAll(async () => {
  dev = await startDev({ env: { OPENAI_API_KEY: "" } });
  for (const [uid, name] of [["carol", "Carol"], ["dave", "Dave"], ["erin", "Erin"]] as const) {
    await dev.createUser(uid, name);
    tokens[uid] = await dev.mintToken(uid);
  }
});
afterAll(() => dev?.stop());
const b = useBrowser({ target: () => dev.base });

const open = async (who: string, params: Record<string, unknown>) => {
  const page = await b.newPage();
  await openCase(page, "features-list", { appId: "agentry-dev", ...params }, { token: tokens[who] });
  return page;
};

describe("ChatMessageList AI features", () => {
  test("AI off (no assistant): no starters, no smart replies, no translate", async () => {
    await dev.call("POST", "/messages", { receiver: "erin", receiverType: "user", text: "What is for lunch?" }, tokens.dave);
    const page = await open("erin", { user: "dave", showSmartReplies: true, showConversationStarters: true, smartRepliesDelayDuration: 0, quickOptionsCount: 20 });
    const a = page.locator("article", { hasText: "What is for lunch?" });
    await a.hover();
    await a.getByRole("button", { name: "Copy" }).waitFor();
    // The service said AI is off (GET /ai), and the page has done all it does with that answer.
    await responded(page, /\/chat\/v1\/ai$/);
    await settled(page);
    expect(await a.getByRole("button", { name: "Translate" }).count()).toBe(0);
    expect(await page.locator(".chat-message-list__footer-smart-replies, .chat-message-list__footer-conversation-starter").count()).toBe(0);
    await expectNoErrors(page);
  });

  test("conversation starters in an empty conversation; choosing one sends it", async () => {
    await dev.call("PUT", "/ai/assistant", { agentId: "chef" });
    const page = await open("carol", { user: "dave", showConversationStarters: true });
    const starters = page.locator(".chat-message-list__footer-conversation-starter");
    await starters.getByRole("button").first().waitFor({ timeout: 30_000 });
    expect(await starters.getAttribute("aria-label")).toBe("Conversation starters");
    await expectAccessible(page);
    await screenshot(page, "features/conversation-starters");
    const first = (await starters.getByRole("button").first().textContent()) ?? "";
    expect(first.length).toBeGreaterThan(0);
    await starters.getByRole("button").first().click();
    await starters.waitFor({ state: "detached" });
    expect((await waitForEvent(page, "ccMessageSent")).args).toEqual([first]);
    await page.getByRole("log").locator("article", { hasText: first.slice(0, 40) }).waitFor();
    await expectNoErrors(page);
  });
});

describe("ChatMessageList AI features: smart replies and translation", () => {
  test("smart replies after the delay for another's message with a keyword; choosing one sends it", async () => {
    await dev.call("POST", "/messages", { receiver: "dave", receiverType: "user", text: "When do we leave for the market?" }, tokens.erin);
    const page = await open("dave", { user: "erin", showSmartReplies: true, smartRepliesDelayDuration: 1500 });
    await page.locator("article", { hasText: "When do we leave" }).waitFor();
    const replies = page.locator(".chat-message-list__footer-smart-replies");
    await replies.getByRole("button").first().waitFor({ timeout: 30_000 });
    // Not before the delay: the page asked for them at least a second after the message had
    // arrived (timed in the page, so a busy machine cannot make it look early).
    const asked = await page.evaluate(() => {
      const at = (re: RegExp) => performance.getEntriesByType("resource").find((e) => re.test(new URL(e.name).pathname)) as PerformanceResourceTiming;
      return at(/\/ai\/smart-replies$/).startTime - at(/\/users\/[^/]+\/messages$/).responseEnd;
    });
    expect(asked).toBeGreaterThanOrEqual(1000);
    expect(await replies.getAttribute("aria-label")).toBe("Smart replies");
    await expectAccessible(page);
    await screenshot(page, "features/smart-replies");
    const reply = replies.locator(".chat-ai-reply").first();
    const text = (await reply.textContent()) ?? "";
    await reply.click();
    await replies.waitFor({ state: "detached" });
    expect((await waitForEvent(page, "ccMessageSent")).args).toEqual([text]);
    // The sent reply is the user's own: no smart replies for it, even after the delay (1.5 s).
    await page.waitForTimeout(2000);
    expect(await replies.count()).toBe(0);
    await expectNoErrors(page);
  });

  test("translate into the browser's language shows the translation under the bubble", async () => {
    await dev.call("POST", "/messages", { receiver: "carol", receiverType: "user", text: "Bonjour Carol" }, tokens.erin);
    const page = await open("carol", { user: "erin", quickOptionsCount: 0 });
    const a = page.locator("article", { hasText: "Bonjour Carol" });
    await a.hover();
    await a.getByRole("button", { name: "More options" }).click();
    const req = page.waitForRequest((r) => /\/messages\/\d+\/translate$/.test(r.url()));
    await page.getByRole("menuitem", { name: "Translate" }).click();
    const lang = await page.evaluate(() => navigator.language);
    const body = (await req).postDataJSON() as { language: string };
    expect(body.language).toBe(new Intl.DisplayNames(["en"], { type: "language" }).of(lang));
    const translation = a.locator(".chat-message-bubble__translation");
    await translation.waitFor({ timeout: 30_000 });
    expect(((await translation.textContent()) ?? "").length).toBeGreaterThan("Translation".length);
    await screenshot(page, "features/translation");
    await expectNoErrors(page);
  });
});
