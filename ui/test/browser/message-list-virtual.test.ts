// ChatMessageList at length: only a window of the loaded messages is in the DOM (spacers stand
// for the rest), and every behaviour holds across the window's edges: paging back to the first
// message and forward again with a bounded DOM and the reader's position kept, keyboard moves
// to messages that were not rendered, and a message arriving far below the window announced
// and counted, then shown when the reader jumps down. The list holds at most 500 messages
// (state.ts MAX_LOADED): the far end is let go and paged in again.
import { describe, expect, test } from "vitest";
import type { Page } from "playwright-core";
import { expectAccessible, frames, openCase, pageErrors, screenshot, useChat } from "./harness";
import { conversation, firstVisible, gapToBottom, inView, LIST, people, send, texts } from "./message-list.fixtures";

/** The messages in the DOM, and every element. */
const domCounts = (page: Page) =>
  page.evaluate((sel) => ({ messages: document.querySelectorAll(`${sel} [data-message-id]`).length, nodes: document.querySelectorAll("*").length }), LIST);

const scrollTo = (page: Page, where: "top" | "bottom") =>
  page.evaluate(([sel, w]) => { const s = document.querySelector<HTMLElement>(sel)!; s.scrollTop = w === "top" ? 0 : s.scrollHeight; }, [LIST, where] as const);

const { chat, b } = useChat({ args: ["--rate-limit=0"] }); // the tests seed hundreds of messages

describe("ChatMessageList virtualized", () => {
  test("back to the first of 600 messages and forward again: a bounded DOM, the position kept at each page", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 600);
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, limit: 50 }, { token: alice.token });
    await expect.poll(() => texts(page).then((t) => t.at(-1))).toBe("m 600");
    let most = await domCounts(page);
    // Page back: each older page is prepended while the first visible message stays put.
    for (let round = 0; round < 40 && !(await texts(page)).includes("m 1"); round++) {
      await page.evaluate((sel) => { document.querySelector<HTMLElement>(sel)!.scrollTop = 120; }, LIST);
      // Let the window follow the scroll before recording the position: it renders the bubbles
      // in view as a transition (virtual.ts), in slices that yield to the browser, so on a slow
      // machine the top spacer may fill the view for some frames. Wait until a message covers
      // the view's top edge.
      await expect.poll(async () => (await firstVisible(page)).offset <= 0.5, { timeout: 10_000 }).toBe(true);
      const before = await firstVisible(page);
      // The older page's load may take a while on a busy machine (the poll's default is 1 s); a
      // position that jumped never comes back, so a longer wait does not hide one.
      await expect.poll(async () => (await firstVisible(page)).id === before.id && (await page.locator(`${LIST}[aria-busy]`).count()) === 0, { timeout: 10_000 }).toBe(true);
      const after = await firstVisible(page);
      expect(Math.abs(after.offset - before.offset), `round ${round}`).toBeLessThanOrEqual(2);
      const c = await domCounts(page);
      most = { messages: Math.max(most.messages, c.messages), nodes: Math.max(most.nodes, c.nodes) };
    }
    await scrollTo(page, "top");
    await expect.poll(() => inView(page, `${LIST} [data-message-id]`)).toBe(true);
    expect((await texts(page))[0]).toBe("m 1");
    await screenshot(page, "message-list/virtual-first-message");
    // The list holds at most 500 messages: the newest went while paging back.
    expect(await page.locator(`${LIST} [data-message-id]`).count()).toBeLessThanOrEqual(120);
    // A message arriving now is not even loaded (the newest pages were let go): it is counted
    // and announced all the same.
    await send(chat, bob, alice.uid, "far news");
    const indicator = page.locator(".chat-message-list__new-message-indicator");
    await expect.poll(() => indicator.textContent()).toBe("1 new message");
    expect(await page.locator(".chat-message-list__announcer").textContent()).toBe("New message from Bob");
    // Forward to the newest again, a view at a time (the newest pages load again on the way).
    const atNewest = async () => (await gapToBottom(page)) <= 1 && (await texts(page)).at(-1) === "far news";
    for (let round = 0; round < 300 && !(await atNewest()); round++) {
      await page.evaluate((sel) => { const s = document.querySelector<HTMLElement>(sel)!; s.scrollTop += s.clientHeight * 2; }, LIST);
      await frames(page, 1);
      const c = await domCounts(page);
      most = { messages: Math.max(most.messages, c.messages), nodes: Math.max(most.nodes, c.nodes) };
    }
    await expect.poll(() => texts(page).then((t) => t.at(-1))).toBe("far news");
    expect(await inView(page, `${LIST} [data-message-id]:nth-last-child(1 of [data-message-id])`)).toBe(true);
    // 600 loaded, about a window rendered at any time.
    expect(most.messages).toBeLessThanOrEqual(120);
    expect(most.nodes).toBeLessThan(3000);
    await expectAccessible(page);
    expect(pageErrors(page)).toEqual([]);
  });
});

describe("ChatMessageList virtualized: the keyboard and far messages", () => {
  test("keyboard: Home and End reach the first and last loaded messages outside the window", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 150);
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, limit: 100 }, { token: alice.token });
    await expect.poll(() => texts(page).then((t) => t.at(-1))).toBe("m 150");
    expect((await texts(page)).includes("m 51")).toBe(false); // loaded, not rendered
    const focused = () => page.evaluate(() => document.activeElement?.closest("article")?.querySelector(".chat-text-bubble__text")?.textContent ?? null);
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("m 150");
    await page.keyboard.press("Home");
    await expect.poll(focused).toBe("m 51");
    expect(await inView(page, "article:focus")).toBe(true);
    await page.keyboard.press("ArrowDown");
    expect(await focused()).toBe("m 52");
    await page.keyboard.press("End");
    await expect.poll(focused).toBe("m 150");
    expect(await inView(page, "article:focus")).toBe(true);
    // Half way up the window, on a desktop and on a phone.
    for (const [width, height] of [[1280, 800], [390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await page.evaluate((sel) => { const s = document.querySelector<HTMLElement>(sel)!; s.scrollTop = s.scrollHeight / 2; }, LIST);
      await frames(page);
      expect(await page.locator(`${LIST} [data-message-id]`).count()).toBeLessThanOrEqual(64);
      await screenshot(page, `message-list/virtual-${width}`);
    }
  });

  test("a message arriving far below the window is announced and counted, and shown on the jump down", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 200);
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, limit: 100 }, { token: alice.token });
    await expect.poll(() => texts(page).then((t) => t.at(-1))).toBe("m 200");
    const keys = ["m 101", "m 102"];
    // To the oldest loaded message, with the newest out of the window.
    for (let i = 0; i < 20 && !(await texts(page)).includes(keys[0]!); i++) {
      await page.evaluate((sel) => { const s = document.querySelector<HTMLElement>(sel)!; s.scrollTop = Math.max(300, s.scrollTop - s.clientHeight * 2); }, LIST);
      await frames(page);
    }
    // The window follows the view as a transition: it has let the newest go once it renders the older ones.
    await expect.poll(async () => (await texts(page)).includes("m 200")).toBe(false);
    await send(chat, bob, alice.uid, "late news");
    const indicator = page.locator(".chat-message-list__new-message-indicator");
    await expect.poll(() => indicator.textContent()).toBe("1 new message");
    const announcer = page.locator(".chat-message-list__announcer");
    const first = await announcer.textContent();
    expect(first).toBe("New message from Bob");
    expect(await announcer.getAttribute("role")).toBe("status");
    // A second message from the same sender changes the region's text, so it is read again.
    await send(chat, bob, alice.uid, "later news");
    await expect.poll(() => indicator.textContent()).toBe("2 new messages");
    const second = await announcer.textContent();
    expect(second?.trim()).toBe("New message from Bob");
    expect(second).not.toBe(first);
    expect((await texts(page)).includes("late news")).toBe(false);
    await indicator.click();
    await expect.poll(() => texts(page).then((t) => t.at(-1))).toBe("later news");
    await expect.poll(() => gapToBottom(page)).toBeLessThanOrEqual(1);
    expect(await inView(page, `${LIST} [data-message-id]:nth-last-child(1 of [data-message-id])`)).toBe(true);
  });
});

describe("ChatMessageList virtualized: a phone", () => {
  test("a phone-wide list: a long message's bubble takes most of the width, the options float over it, \"edited\" stays on one line", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    const long = "This is a long message about the plan for tomorrow, with enough words to wrap over several lines on a phone.";
    await send(chat, bob, alice.uid, long);
    const mine = await send(chat, alice, bob.uid, "a short one, then edited");
    await chat.call("PUT", `/messages/${mine.id}`, { text: "a short one, edited" }, alice.token);
    const page = await b.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await openCase(page, "message-list", { user: bob.uid }, { token: alice.token });
    await expect.poll(() => texts(page)).toEqual([long, "a short one, edited"]);
    const sizes = await page.evaluate((sel) => {
      const list = document.querySelector<HTMLElement>(sel)!.getBoundingClientRect();
      const body = document.querySelector<HTMLElement>(".chat-message-bubble-incoming .chat-message-bubble__body")!.getBoundingClientRect();
      const edited = document.querySelector<HTMLElement>(".chat-message-bubble__edited")!;
      return { list: list.width, body: body.width, editedHeight: edited.getBoundingClientRect().height, lineHeight: parseFloat(getComputedStyle(edited).lineHeight) || 16 };
    }, LIST);
    expect(sizes.body / sizes.list).toBeGreaterThan(0.6);
    expect(sizes.editedHeight).toBeLessThan(sizes.lineHeight * 1.6);
    // The options appear over the bubble on focus, without narrowing it.
    await page.locator("article", { hasText: long }).focus();
    const after = await page.evaluate(() => document.querySelector<HTMLElement>(".chat-message-bubble-incoming .chat-message-bubble__body")!.getBoundingClientRect().width);
    expect(after).toBeCloseTo(sizes.body, 0);
    expect(await page.locator("article:focus-within .chat-message-bubble__options").evaluate((e) => getComputedStyle(e).visibility)).toBe("visible");
    await expectAccessible(page);
    await screenshot(page, "message-list/phone-width");
  });
});
