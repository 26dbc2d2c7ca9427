// ChatMessageList in chromium against a real `agentry chat`: loading, scroll-up paging that
// keeps the reader's position (also when a page does not fill the view), goToMessageId,
// startFromUnreadMessages, date separators and the sticky date, alignment, the state views
// (loading, empty, error with hideError/onError and recovery), a host page's styles, axe, and
// screenshots (artifacts/message-list/). Live behaviour: message-list-live.test.ts.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { events, expectAccessible, frames, highlighted, openCase, pageErrors, screenshot, useChat, waitForEvent } from "./harness";
import { conversation, firstVisible, gapToBottom, inView, LIST, people, send, texts } from "./message-list.fixtures";

const hasSqlite = (() => {
  try {
    execFileSync("sqlite3", ["-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const { chat, b } = useChat();

describe("ChatMessageList", () => {
  test("loads a conversation at its newest message: bubbles, receipts, formatted text, axe", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await send(chat, bob, alice.uid, "Hi Alice! The menu is at https://example.com/menu.");
    await send(chat, alice, bob.uid, "Thanks Bob.\nSee you at noon?");
    await send(chat, bob, alice.uid, "Yes, noon works.");
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid }, { token: alice.token });
    const log = page.getByRole("log", { name: `Messages with Bob` });
    await expect.poll(() => texts(page)).toEqual(["Hi Alice! The menu is at https://example.com/menu.", "Thanks Bob.See you at noon?", "Yes, noon works."]);
    expect(await log.getAttribute("aria-live")).toBe("polite");
    expect(await page.locator(".chat-message-bubble-outgoing").count()).toBe(1);
    expect(await page.locator(".chat-message-bubble-incoming").count()).toBe(2);
    expect(await page.locator(".chat-text-bubble a").getAttribute("href")).toBe("https://example.com/menu");
    expect(await page.locator(".chat-text-bubble br").count()).toBe(1);
    // Sent, not yet delivered: Bob has no session.
    expect(await page.locator(".chat-message-bubble-outgoing .chat-receipt").getAttribute("aria-label")).toBe("Sent");
    expect(await page.locator(".chat-message-bubble__status-info-view .chat-date").first().textContent()).toMatch(/^\d\d:\d\d (AM|PM)$/);
    expect(await page.getByRole("article").count()).toBe(3);
    await expectAccessible(page);
    await screenshot(page, "message-list/one-to-one");
    expect(pageErrors(page)).toEqual([]);
  });

  test("scrolling up loads older pages and keeps the first visible message where it was", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 100);
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, limit: 20 }, { token: alice.token });
    await expect.poll(() => texts(page).then((t) => t.at(-1))).toBe("m 100");
    expect(await gapToBottom(page)).toBeLessThanOrEqual(1);
    for (let round = 0; round < 2; round++) {
      const before = await firstVisible(page);
      await page.evaluate((sel) => {
        document.querySelector<HTMLElement>(sel)!.scrollTop = 0;
      }, LIST);
      const atTop = await firstVisible(page);
      await expect.poll(async () => (await firstVisible(page)).count).toBeGreaterThan(before.count);
      await expect.poll(() => page.locator(".chat-message-list__loading-more").count()).toBe(0);
      const after = await page.evaluate(
        ([sel, id]) => {
          const s = document.querySelector<HTMLElement>(sel)!;
          const el = s.querySelector<HTMLElement>(`[data-message-id="${id}"]`)!;
          return { offset: el.getBoundingClientRect().top - s.getBoundingClientRect().top, scrollTop: s.scrollTop };
        },
        [LIST, atTop.id] as const,
      );
      expect(Math.abs(after.offset - atTop.offset), `message ${atTop.id} moved`).toBeLessThanOrEqual(1);
      expect(after.scrollTop).toBeGreaterThan(240); // the older page is above the reader, not in view
    }
    await screenshot(page, "message-list/paged-up");
  });

  test("keeps fetching older pages while the first ones do not fill the view", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 60);
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, limit: 4 }, { token: alice.token });
    await expect
      .poll(() => page.evaluate((sel) => { const s = document.querySelector<HTMLElement>(sel)!; return s.scrollHeight > s.clientHeight + 240; }, LIST))
      .toBe(true);
    const count = (await firstVisible(page)).count;
    expect(count).toBeGreaterThan(4);
    expect(count).toBeLessThan(60);
    expect(await gapToBottom(page)).toBeLessThanOrEqual(1); // still at the newest message
    expect(await inView(page, `${LIST} [data-message-id]:nth-last-child(1 of [data-message-id])`)).toBe(true);
  });
});

describe("ChatMessageList: jumps to a message and to the first unread", () => {
  test("goToMessageId loads around the message, shows and highlights it, then pages newer to the end", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    const sent = await conversation(chat, alice, bob, 100);
    const target = sent[29]!.id; // "m 30"
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, limit: 20, props: { goToMessageId: String(target) } }, { token: alice.token });
    const el = `[data-message-id="${target}"]`;
    await expect.poll(() => inView(page, el)).toBe(true);
    await expect.poll(async () => (await highlighted(page)).some((h) => h.startsWith(`${target} `))).toBe(true);
    expect(await texts(page)).not.toContain("m 100");
    await screenshot(page, "message-list/go-to-message");
    await expect.poll(() => page.locator(el).getAttribute("class")).not.toContain("--highlighted");
    // Scrolling down loads the newer pages until the newest message.
    await expect
      .poll(async () => {
        await page.evaluate((sel) => { const s = document.querySelector<HTMLElement>(sel)!; s.scrollTop = s.scrollHeight; }, LIST);
        return (await texts(page)).at(-1);
      }, { timeout: 15_000 })
      .toBe("m 100");
    await send(chat, bob, alice.uid, "live after the jump");
    await expect.poll(() => texts(page).then((t) => t.at(-1))).toBe("live after the jump");
  });

  test("startFromUnreadMessages opens at the first unread message with a New messages divider", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    const sent: { id: number }[] = [];
    for (let i = 1; i <= 70; i++) sent.push(await send(chat, bob, alice.uid, `u ${i}`));
    await chat.call("POST", `/messages/${sent[19]!.id}/read`, undefined, alice.token); // read up to "u 20"
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, limit: 30, props: { startFromUnreadMessages: true } }, { token: alice.token });
    const divider = page.getByRole("separator", { name: "New messages" });
    await divider.waitFor();
    expect(await inView(page, "[data-unread-divider]")).toBe(true);
    const next = await page.evaluate(() => document.querySelector("[data-unread-divider]")!.nextElementSibling!.textContent);
    expect(next).toContain("u 21");
    expect(await texts(page)).not.toContain("u 70");
    await expectAccessible(page);
    await screenshot(page, "message-list/unread");
  });
});

describe("ChatMessageList: dates", () => {
  test("date separators and the sticky date use the calendar formats (page clock moved ahead)", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 40);
    const day = 86_400_000;
    const cases: [number, RegExp][] = [
      [0, /^Today$/],
      [day, /^Yesterday$/],
      [3 * day, /^(Sunday|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday)$/],
      [10 * day, /^\d\d [A-Z][a-z]{2}, \d{4}$/],
    ];
    for (const [ahead, want] of cases) {
      const page = await b.newPage();
      await page.clock.setFixedTime(Date.now() + ahead);
      await openCase(page, "message-list", { user: bob.uid }, { token: alice.token });
      const sep = page.locator(".chat-message-list__date-separator");
      await sep.first().waitFor();
      expect(await sep.count()).toBe(1);
      expect(await sep.getAttribute("aria-label")).toMatch(want);
      await page.close();
    }
    // Custom formats, and the sticky date once the first day's separator scrolled away.
    const page = await b.newPage();
    await page.clock.setFixedTime(Date.now() + day);
    const formats = { separatorDateTimeFormat: { yesterday: "[The day before]" }, stickyDateTimeFormat: { yesterday: "[Sticky:] dddd" }, messageSentAtDateTimeFormat: { yesterday: "[at] HH:mm" } };
    await openCase(page, "message-list", { user: bob.uid, props: formats }, { token: alice.token });
    await page.getByRole("separator", { name: "The day before" }).waitFor();
    expect(await page.locator(".chat-date").first().textContent()).toMatch(/^at \d\d:\d\d$/);
    await page.evaluate((sel) => { document.querySelector<HTMLElement>(sel)!.scrollTop = 300; }, LIST);
    await expect.poll(() => page.locator(".chat-message-list__sticky-date").textContent()).toMatch(/^Sticky: [A-Z][a-z]+day$/);
    await screenshot(page, "message-list/sticky-date");
    await page.close();
    const hidden = await b.newPage();
    await openCase(hidden, "message-list", { user: bob.uid, props: { hideDateSeparator: true, hideStickyDate: true } }, { token: alice.token });
    await hidden.locator(".chat-text-bubble").first().waitFor();
    await hidden.evaluate((sel) => { document.querySelector<HTMLElement>(sel)!.scrollTop = 300; }, LIST);
    await frames(hidden);
    expect(await hidden.locator(".chat-message-list__date-separator, .chat-message-list__sticky-date").count()).toBe(0);
  });

  // The REST API cannot backdate messages, so this test moves stored send times in the test's
  // own SQLite database (sqlite3 CLI) to get several days in one conversation.
  test.skipIf(!hasSqlite)("separators between days, and the sticky date follows the topmost message (backdated in SQLite)", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    const sent = await conversation(chat, alice, bob, 45);
    const ids = (from: number, to: number) => sent.slice(from, to).map((m) => m.id).join(",");
    const dayUs = 86_400_000_000;
    execFileSync("sqlite3", [
      join(chat.dir, "chat.db"),
      `.timeout 5000`,
      `UPDATE chat_messages SET sent_us = sent_us - ${9 * dayUs} WHERE id IN (${ids(0, 15)});`,
      `UPDATE chat_messages SET sent_us = sent_us - ${1 * dayUs} WHERE id IN (${ids(15, 30)});`,
    ]);
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, limit: 50 }, { token: alice.token });
    const seps = page.locator(".chat-message-list__date-separator");
    await expect.poll(() => seps.count()).toBe(3);
    const labels = await seps.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
    expect(labels.slice(1)).toEqual(["Yesterday", "Today"]);
    expect(labels[0]).toMatch(/^\d\d [A-Z][a-z]{2}, \d{4}$/);
    const sticky = () => page.locator(".chat-message-list__sticky-date").textContent();
    const scrollTo = (id: number) =>
      page.evaluate(
        ([sel, i]) => {
          const s = document.querySelector<HTMLElement>(sel)!;
          s.scrollTop = s.querySelector<HTMLElement>(`[data-message-id="${i}"]`)!.offsetTop + 2;
        },
        [LIST, id] as const,
      );
    await scrollTo(sent[20]!.id);
    await expect.poll(sticky).toBe("Yesterday");
    await screenshot(page, "message-list/days");
    await scrollTo(sent[5]!.id);
    await expect.poll(sticky).toBe(labels[0]);
    await scrollTo(sent[40]!.id);
    await expect.poll(sticky).toBe("Today");
  });
});

describe("ChatMessageList: alignment and state views", () => {
  test("messageAlignment: standard puts outgoing messages on the right, left puts all on the left", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 6);
    const sides = async (page: Awaited<ReturnType<typeof b.newPage>>) =>
      page.evaluate((sel) => {
        const list = document.querySelector<HTMLElement>(sel)!.getBoundingClientRect();
        const mid = list.left + list.width / 2;
        const side = (cls: string) => [...document.querySelectorAll(`.${cls} .chat-message-bubble__body`)].map((e) => (e.getBoundingClientRect().left > mid ? "right" : "left"));
        return { out: [...new Set(side("chat-message-bubble-outgoing"))], inc: [...new Set(side("chat-message-bubble-incoming"))] };
      }, LIST);
    const standard = await b.newPage();
    await openCase(standard, "message-list", { user: bob.uid }, { token: alice.token });
    await standard.locator(".chat-text-bubble").first().waitFor();
    expect(await sides(standard)).toEqual({ out: ["right"], inc: ["left"] });
    const left = await b.newPage();
    await openCase(left, "message-list", { user: bob.uid, props: { messageAlignment: 0 } }, { token: alice.token });
    await left.locator(".chat-text-bubble").first().waitFor();
    expect(await sides(left)).toEqual({ out: ["left"], inc: ["left"] });
    expect(await left.locator(".chat-message-bubble__sender-name").first().isVisible()).toBe(true);
    await expectAccessible(left);
    await screenshot(left, "message-list/align-left");
  });

  test("loading view (default and custom), empty view (default and custom)", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    const page = await b.newPage();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route("**/chat/v1/users/*/messages**", async (route) => {
      await held;
      await route.continue();
    });
    await openCase(page, "message-list", { user: bob.uid }, { token: alice.token });
    await page.getByRole("status", { name: "Loading messages" }).waitFor();
    await screenshot(page, "message-list/loading");
    release();
    await page.getByText("No messages yet").waitFor();
    await expectAccessible(page);
    await screenshot(page, "message-list/empty");
    await page.unrouteAll();

    const custom = await b.newPage();
    let release2!: () => void;
    const held2 = new Promise<void>((r) => (release2 = r));
    await custom.route("**/chat/v1/users/*/messages**", async (route) => {
      await held2;
      await route.continue();
    });
    await openCase(custom, "message-list", { user: bob.uid, loadingView: "Fetching…", emptyView: "Nothing here" }, { token: alice.token });
    await custom.locator(".case-loading-view").waitFor();
    release2();
    await custom.locator(".case-empty-view").waitFor();
    expect(await custom.locator(".chat-message-list__empty-state-view").count()).toBe(0);
    await custom.unrouteAll();
  });
});

describe("ChatMessageList: errors", () => {
  test("error view when the service is down, onError with the code, retry when it is back", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await send(chat, bob, alice.uid, "are you there?");
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, mountOnClick: true }, { token: alice.token });
    b.server.setTarget(null);
    try {
      await page.getByRole("button", { name: "Show messages" }).click();
      const view = page.locator(".chat-message-list__error-state-view");
      await view.waitFor();
      expect(await view.getAttribute("role")).toBe("alert");
      expect((await waitForEvent(page, "onError")).args).toEqual(["ERR_NETWORK"]);
      await expectAccessible(page);
      await screenshot(page, "message-list/error");
    } finally {
      b.server.setTarget(chat.base);
    }
    // Back up, the list also reloads by itself once its socket reconnects (the next test), which
    // may take the button away while the click waits for it to be stable: then the reload has
    // happened already. A button that stays and cannot be clicked still fails. (The button's own
    // reload is also the kit's unit test.)
    const retry = page.getByRole("button", { name: "Try again" });
    await retry.click().catch(async (err: unknown) => {
      if ((await retry.count()) > 0) throw err;
    });
    await expect.poll(() => texts(page)).toEqual(["are you there?"]);
  });

  test("the list recovers by itself when the connection comes back after a failed load", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await send(chat, bob, alice.uid, "back online");
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, mountOnClick: true }, { token: alice.token });
    b.server.setTarget(null);
    try {
      await page.getByRole("button", { name: "Show messages" }).click();
      await page.locator(".chat-message-list__error-state-view").waitFor();
    } finally {
      b.server.setTarget(chat.base);
    }
    // The SDK reconnects (backoff) and its onConnected reloads a list that failed.
    await expect.poll(() => texts(page), { timeout: 40_000 }).toEqual(["back online"]);
  });

  test("hideError hides the default and custom error views; onError null is not called", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, mountOnClick: true, errorView: "Custom failure", props: { hideError: true } }, { token: alice.token });
    b.server.setTarget(null);
    try {
      await page.getByRole("button", { name: "Show messages" }).click();
      await waitForEvent(page, "onError");
      expect(await page.locator(".chat-message-list__error-state-view, .case-error-view").count()).toBe(0);
    } finally {
      b.server.setTarget(chat.base);
    }
    const custom = await b.newPage();
    await openCase(custom, "message-list", { user: bob.uid, mountOnClick: true, errorView: "Custom failure", noOnError: true }, { token: alice.token });
    b.server.setTarget(null);
    try {
      await custom.getByRole("button", { name: "Show messages" }).click();
      await custom.getByText("Custom failure").waitFor();
      expect(await custom.locator(".chat-message-list__error-state-view").count()).toBe(0);
      expect(await events(custom, "onError")).toEqual([]);
    } finally {
      b.server.setTarget(chat.base);
    }
  });
});

describe("ChatMessageList: a host page's styles", () => {
  test("a host page's own styles: untouched by the kit, and kit class names outside the list stay unstyled", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 5);
    const page = await b.newPage();
    await openCase(page, "message-list-host", { user: bob.uid }, { token: alice.token });
    await page.locator(".chat-message-list .chat-text-bubble").first().waitFor();
    const host = await page.evaluate(() => {
      const cs = (sel: string) => getComputedStyle(document.querySelector(sel)!);
      return {
        p: [cs("#host-p").marginTop, cs("#host-p").color, cs("#host-p").fontSize],
        button: [cs("#host-button").backgroundColor, cs("#host-button").paddingTop, cs("#host-button").fontSize],
        article: [cs("#host-article").paddingTop, cs("#host-article").backgroundColor],
        bubble: [cs("#host-bubble").display, cs("#host-bubble .chat-message-bubble__body").backgroundColor, cs("#host-bubble .chat-message-bubble__body").paddingTop],
        time: cs("#host-bubble .chat-date").color,
      };
    });
    expect(host).toEqual({
      p: ["40px", "rgb(0, 0, 255)", "20px"],
      button: ["rgb(255, 255, 0)", "20px", "30px"],
      article: ["25px", "rgb(255, 240, 240)"],
      bubble: ["block", "rgba(0, 0, 0, 0)", "0px"],
      time: "rgb(255, 0, 0)",
    });
    // Every rule naming the list's classes is scoped under the component's root.
    const unscoped = await page.evaluate(() => {
      const out: string[] = [];
      const mine = /\.chat-(message|text-bubble|date|delete-bubble|media-bubble|image-bubble|file-bubble|action-bubble|receipt)/;
      const scoped = /^(:is\()?\.chat-(message-list|groups)/;
      for (const sheet of [...document.styleSheets]) {
        for (const rule of [...sheet.cssRules]) {
          if (!(rule instanceof CSSStyleRule)) continue;
          for (const sel of rule.selectorText.split(/,(?![^(]*\))/)) if (mine.test(sel) && !scoped.test(sel.trim())) out.push(sel.trim());
        }
      }
      return out;
    });
    expect(unscoped).toEqual([]);
    // The kit's bubbles keep their look against the host's p and time rules.
    const kit = await page.evaluate(() => {
      const cs = (sel: string) => getComputedStyle(document.querySelector(sel)!);
      return [
        cs(".chat-message-list .chat-text-bubble__text").marginTop,
        cs(".chat-message-list .chat-message-bubble-incoming .chat-text-bubble__text").color,
        cs(".chat-message-list .chat-text-bubble__text").fontSize,
        cs(".chat-message-list .chat-message-bubble__body").paddingTop,
        cs(".chat-message-list article").backgroundColor,
        cs(".chat-message-list .chat-message-bubble-outgoing .chat-date").color,
      ];
    });
    expect(kit).toEqual(["0px", "rgb(20, 20, 20)", "14px", "8px", "rgba(0, 0, 0, 0)", "rgb(255, 255, 255)"]);
    await screenshot(page, "message-list/host-styles");
  });
});
