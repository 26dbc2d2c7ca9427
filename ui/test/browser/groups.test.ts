// ChatGroups in chromium against a real `agentry chat`: 75 groups paged 30 at a time, search,
// selection modes, active highlight, row actions, keyboard, the error view when the service
// is down, axe, a host page's own styles, screenshots (artifacts/groups/).
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { clearEvents, events, expectAccessible, frames, openCase, pageErrors, screenshot, settled, useChat, waitForEvent } from "./harness";

/** expect.poll waits 1 s by default: a loaded machine may need longer. */
const SOON = { timeout: 10_000 };

const TOPICS = ["Kitchen crew", "Garden club", "Design review", "Support desk", "Weekend hikers"];
const LONG = "Quarterly planning for the northern region logistics and procurement working group";
const icon = (fill: string) =>
  `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36"><rect width="36" height="36" fill="${fill}"/><circle cx="18" cy="15" r="6" fill="#fff"/><path d="M7 31c2-6 7-8 11-8s9 2 11 8" fill="#fff"/></svg>`)}`;

/** g001…g075: "<topic> <n>"; g003 private (alice a member), g004 password, g013 a long name. */
function groupSpec(n: number) {
  const guid = `g${String(n).padStart(3, "0")}`;
  const name = n === 13 ? LONG : `${TOPICS[(n - 1) % TOPICS.length]} ${n}`;
  const type = n === 3 ? "private" : n === 4 ? "password" : "public";
  const members = [n === 3 || n % 7 === 0 ? "alice" : "", n % 3 === 0 ? "bob" : ""].filter(Boolean).map((uid) => ({ uid }));
  return { guid, name, type, ...(type === "password" ? { password: "secret" } : {}), ...(n === 1 || n === 6 ? { icon: icon(n === 1 ? "#0b7a75" : "#b5487d") } : {}), members };
}

const { chat, b } = useChat();
let alice = "";
beforeAll(async () => {
  for (const uid of ["alice", "admin", "bob"]) await chat.createUser(uid, uid[0]!.toUpperCase() + uid.slice(1));
  alice = await chat.mintToken("alice");
  const admin = await chat.mintToken("admin");
  for (let n = 1; n <= 75; n++) await chat.call("POST", "/groups", groupSpec(n), admin);
});

const options = (page: Page) => page.getByRole("option");
const names = (page: Page) => page.locator(".chat-list-item__body-title").allTextContents();
/** GET /groups requests the page made (their query). */
const track = (page: Page) => {
  const seen: URLSearchParams[] = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (u.pathname === "/chat/v1/groups") seen.push(u.searchParams);
  });
  return seen;
};
const open = async (page: Page, params: Record<string, unknown> = {}, count = 30) => {
  await openCase(page, "groups", params, { token: alice });
  await expect.poll(() => options(page).count(), SOON).toBe(count);
};
const scrollToBottom = (page: Page) => page.locator(".chat-groups__list-container").evaluate((el) => el.scrollTo(0, el.scrollHeight));

describe("ChatGroups (browser)", () => {
  test("pages 30 at a time as the list is scrolled to the bottom (75 groups)", async () => {
    const page = await b.newPage();
    const requests = track(page);
    await open(page);
    await settled(page);
    expect(await options(page).count()).toBe(30); // the first page fills the view: no more yet
    expect(requests.map((q) => q.get("limit"))).toEqual(["30"]);
    await expectAccessible(page);
    await screenshot(page, "groups/list");
    await scrollToBottom(page);
    await expect.poll(() => options(page).count(), SOON).toBe(60);
    await scrollToBottom(page);
    await expect.poll(() => options(page).count(), SOON).toBe(75);
    await scrollToBottom(page);
    await settled(page);
    expect(await options(page).count()).toBe(75);
    expect(requests).toHaveLength(3);
    expect(requests.slice(1).every((q) => q.get("cursor"))).toBe(true);
    const all = await names(page);
    expect(new Set(all).size).toBe(75);
    expect(all.at(-1)).toBe("Weekend hikers 75");
    expect(pageErrors(page)).toEqual([]);
  });

  test("a tall viewport the first page does not fill: loading goes on until it is full", async () => {
    const page = await b.newPage({ viewport: { width: 1024, height: 2400 } });
    const requests = track(page);
    await open(page, {}, 60);
    await settled(page);
    expect(await options(page).count()).toBe(60);
    expect(requests).toHaveLength(2);
    await screenshot(page, "groups/tall");
  });

  test("loading: the shimmer while the first page loads, two shimmer rows while the next one does", async () => {
    const page = await b.newPage();
    let hold: (() => void) | undefined;
    await page.route(/\/chat\/v1\/groups\?/, async (route) => {
      await new Promise<void>((r) => (hold = r));
      await route.continue();
    });
    await openCase(page, "groups", {}, { token: alice });
    await expect.poll(() => page.locator(".chat-groups__shimmer .chat-groups__shimmer-item").count(), SOON).toBeGreaterThan(4);
    expect(await page.getByRole("status").textContent()).toContain("Loading groups");
    await expectAccessible(page);
    await screenshot(page, "groups/loading");
    await expect.poll(() => hold !== undefined, SOON).toBe(true);
    hold!();
    await expect.poll(() => options(page).count(), SOON).toBe(30);
    hold = undefined;
    await scrollToBottom(page);
    await expect.poll(() => page.locator(".chat-groups__shimmer--more .chat-groups__shimmer-item").count(), SOON).toBe(2);
    expect(await page.getByRole("listbox").getAttribute("aria-busy")).toBe("true");
    await scrollToBottom(page);
    await screenshot(page, "groups/loading-more");
    await expect.poll(() => hold !== undefined, SOON).toBe(true);
    hold!();
    await expect.poll(() => options(page).count(), SOON).toBe(60);
    expect(await page.getByRole("listbox").getAttribute("aria-busy")).toBe("false");
  });
});

describe("ChatGroups (browser): search and selection", () => {
  test("search: debounced, results replace the list, clearing restores it", async () => {
    const page = await b.newPage();
    const requests = track(page);
    await open(page);
    const box = page.getByRole("searchbox", { name: "Search groups" });
    await box.pressSequentially("Garden", { delay: 40 });
    await expect.poll(() => names(page), SOON).toEqual(Array.from({ length: 15 }, (_, i) => `Garden club ${i * 5 + 2}`));
    expect(requests.filter((q) => q.get("searchKeyword")).map((q) => q.get("searchKeyword"))).toEqual(["Garden"]);
    await screenshot(page, "groups/search");
    await box.fill("");
    await expect.poll(() => options(page).count(), SOON).toBe(30);
    expect((await names(page))[0]).toBe("Kitchen crew 1");
    await box.fill("no such group");
    await expect.poll(() => page.locator(".chat-groups__empty-state-view-body-title").textContent(), SOON).toBe("No groups found");
    await expectAccessible(page);
    await screenshot(page, "groups/empty");
  });

  test("search with a searchRequestBuilder: its page size, next pages on scroll", async () => {
    const page = await b.newPage();
    const requests = track(page);
    await open(page, { searchLimit: 5 });
    await page.getByRole("searchbox").fill("Kitchen");
    // Five rows do not fill the view: the next search pages load until it is full.
    await expect.poll(() => names(page), SOON).toEqual(Array.from({ length: 15 }, (_, i) => `Kitchen crew ${i * 5 + 1}`));
    expect(requests.filter((q) => q.get("searchKeyword")).length).toBeGreaterThanOrEqual(3);
    expect(requests.filter((q) => q.get("searchKeyword")).every((q) => q.get("limit") === "5")).toBe(true);
  });

  test("selection single: radio semantics, onSelect for the unchecked and the checked row", async () => {
    const page = await b.newPage();
    await open(page, { selectionMode: "single" });
    const row = (guid: string) => page.locator(`.chat-groups__list-item[data-guid="${guid}"] [role=option]`);
    await row("g001").locator(".chat-groups__selection").click();
    await row("g002").locator(".chat-groups__selection").click();
    await row("g005").focus();
    await page.keyboard.press("Space");
    await waitForEvent(page, "onSelect", { count: 5 });
    expect((await events(page, "onSelect")).map((e) => e.args)).toEqual([["g001", true], ["g001", false], ["g002", true], ["g002", false], ["g005", true]]);
    expect(await page.locator("[role=option][aria-checked=true]").count()).toBe(1);
    expect(await row("g005").getAttribute("aria-checked")).toBe("true");
    expect(await page.getByRole("listbox").getAttribute("aria-multiselectable")).toBeNull();
    await expectAccessible(page);
    await screenshot(page, "groups/selection-single");
  });

  test("selection multiple: check boxes, aria-multiselectable, onSelect both ways", async () => {
    const page = await b.newPage();
    await open(page, { selectionMode: "multiple" });
    expect(await page.getByRole("listbox").getAttribute("aria-multiselectable")).toBe("true");
    const row = (guid: string) => page.locator(`.chat-groups__list-item[data-guid="${guid}"] [role=option]`);
    await row("g002").locator(".chat-groups__selection").click();
    await row("g003").locator(".chat-groups__selection").click();
    await row("g004").focus();
    await page.keyboard.press("Space");
    await row("g002").locator(".chat-groups__selection").click();
    await waitForEvent(page, "onSelect", { count: 4 });
    expect((await events(page, "onSelect")).map((e) => e.args)).toEqual([["g002", true], ["g003", true], ["g004", true], ["g002", false]]);
    expect(await page.locator("[role=option][aria-checked=true]").count()).toBe(2);
    expect(await events(page, "onItemClick")).toEqual([]);
    await expectAccessible(page);
    await screenshot(page, "groups/selection-multiple");
  });
});

describe("ChatGroups (browser): activation and row actions", () => {
  test("activeGroup highlights its row (by guid); click and Enter call onItemClick; arrows move", async () => {
    const page = await b.newPage();
    await open(page, { activeGuid: "g005" });
    const active = page.locator(".chat-groups__list-item-active");
    expect(await active.getAttribute("data-guid")).toBe("g005");
    expect(await active.locator("[role=option]").getAttribute("aria-selected")).toBe("true");
    const bg = await active.locator(".chat-list-item").evaluate((el) => getComputedStyle(el).backgroundColor);
    const token = await page.evaluate(() => {
      const probe = document.createElement("div");
      probe.style.background = "var(--chat-active-color)";
      document.querySelector(".chat")!.appendChild(probe);
      const c = getComputedStyle(probe).backgroundColor;
      probe.remove();
      return c;
    });
    expect(bg).toBe(token);
    // Tab reaches the active row first (the roving Tab stop).
    await page.getByRole("searchbox").focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.closest("li")?.getAttribute("data-guid"))).toBe("g005");
    await page.getByRole("option", { name: /Kitchen crew 11/ }).click();
    expect((await waitForEvent(page, "onItemClick")).args).toEqual(["g011"]);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    expect((await waitForEvent(page, "onItemClick", { count: 2 })).args).toEqual(["g013"]);
    await page.keyboard.press("End");
    expect(await page.evaluate(() => document.activeElement?.closest("li")?.getAttribute("data-guid"))).toBe("g030");
    await page.keyboard.press("Home");
    expect(await page.evaluate(() => document.activeElement?.closest("li")?.getAttribute("data-guid"))).toBe("g001");
    await page.mouse.move(900, 700);
    await screenshot(page, "groups/active");
  });

  test("row actions (options): on hover and for the focused row, reachable with Tab", async () => {
    const page = await b.newPage();
    await open(page, { options: true });
    await page.getByRole("option", { name: /Garden club 2/ }).first().hover();
    const bar = page.getByRole("toolbar", { name: "Actions for Garden club 2" });
    await bar.getByRole("button", { name: "Mute" }).click();
    expect((await waitForEvent(page, "onOption")).args).toEqual(["mute", "g002"]);
    await expectAccessible(page);
    await screenshot(page, "groups/options");
    await page.mouse.move(900, 700);
    await page.getByRole("option", { name: /Support desk 4/ }).focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Mute");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect((await waitForEvent(page, "onOption", { count: 2 })).args).toEqual(["leave", "g004"]);
    await page.keyboard.press("Escape");
    expect(await page.evaluate(() => document.activeElement?.closest("li")?.getAttribute("data-guid"))).toBe("g004");
  });
});

describe("ChatGroups (browser): type indicators and names", () => {
  test("group type indicators, long names truncated, hideGroupType, showScrollbar", async () => {
    const page = await b.newPage({ deviceScaleFactor: 2 });
    await open(page);
    await expect.poll(() => page.locator(".chat-groups__list-item-private .chat-list-item__status .chat-list-item__status-icon").count(), SOON).toBe(1);
    await expect.poll(() => page.locator(".chat-groups__list-item-password .chat-list-item__status .chat-list-item__status-icon").count(), SOON).toBe(1);
    expect(await page.getByRole("img", { name: "Private group" }).count()).toBe(1);
    expect(await page.getByRole("img", { name: "Password-protected group" }).count()).toBe(1);
    expect(await page.locator(".chat-list-item__status").count()).toBe(2);
    const title = page.locator('.chat-groups__list-item[data-guid="g013"] .chat-list-item__body-title');
    const t = await title.evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth, to: getComputedStyle(el).textOverflow }));
    expect(t.sw).toBeGreaterThan(t.cw);
    expect(t.to).toBe("ellipsis");
    // The badge sits on the avatar's lower right corner, inside the row.
    const [avatar, badge] = await Promise.all([
      page.locator('.chat-groups__list-item[data-guid="g003"] .chat-avatar').boundingBox(),
      page.locator('.chat-groups__list-item[data-guid="g003"] .chat-list-item__status').boundingBox(),
    ]);
    expect(badge!.x + badge!.width).toBeGreaterThan(avatar!.x + avatar!.width - 4);
    expect(badge!.y + badge!.height).toBeGreaterThan(avatar!.y + avatar!.height - 4);
    await screenshot(page, "groups/rows-badges", { selector: '.chat-groups__list-item[data-guid="g003"]' });
    await page.locator('.chat-groups__list-item[data-guid="g014"]').scrollIntoViewIfNeeded();
    await screenshot(page, "groups/rows", { selector: ".case-groups" });
    // (headless chromium hides scrollbars itself: the style is what the prop controls)
    const scrollbar = (p: Page) => p.locator(".chat-groups__list-container").evaluate((el) => getComputedStyle(el).scrollbarWidth);
    expect(await scrollbar(page)).toBe("none");

    const page2 = await b.newPage();
    await open(page2, { hideGroupType: true, showScrollbar: true, hideSearch: true });
    expect(await page2.locator(".chat-list-item__status").count()).toBe(0);
    expect(await page2.getByRole("searchbox").count()).toBe(0);
    expect(await scrollbar(page2)).toBe("thin");
  });
});

describe("ChatGroups (browser): errors", () => {
  test("the service down: error view and onError; back: retry recovers; hideError hides the view", async () => {
    const page = await b.newPage();
    await open(page);
    b.server.setTarget(null);
    try {
      await page.getByRole("searchbox").fill("Kitchen");
      await expect.poll(() => page.locator(".chat-groups__error-state-view-body-title").textContent(), SOON).toBe("Couldn’t load groups");
      await expect.poll(() => page.locator(".chat-groups__error-state-view-body-description").count(), SOON).toBe(1);
      expect((await waitForEvent(page, "onError")).args).toEqual(["ERR_NETWORK"]);
      await expectAccessible(page);
      await screenshot(page, "groups/error");
    } finally {
      b.server.setTarget(chat.base);
    }
    // Back: "Try again" reloads (unless the socket's reconnection already retried).
    await page.getByRole("button", { name: "Try again" }).click().catch(() => undefined);
    await expect.poll(() => options(page).count(), SOON).toBe(15);
    expect(await page.locator(".chat-groups__error-state-view").count()).toBe(0);
  });

  test("hideError: no error view (onError still called); the list recovers when the socket reconnects", async () => {
    const page = await b.newPage();
    await open(page, { hideError: true });
    b.server.setTarget(null);
    try {
      await page.getByRole("searchbox").fill("Garden");
      expect((await waitForEvent(page, "onError")).args).toEqual(["ERR_NETWORK"]);
      await frames(page);
      expect(await page.locator(".chat-groups__error-state-view").count()).toBe(0);
      expect(await page.getByRole("button", { name: "Try again" }).count()).toBe(0);
      expect(await options(page).count()).toBe(0);
    } finally {
      b.server.setTarget(chat.base);
    }
    await expect.poll(() => options(page).count(), { timeout: 40_000 }).toBe(15);
  });
});

describe("ChatGroups (browser): a host page's styles", () => {
  test("a host page's own styles: untouched by the kit, and the kit's rows unaffected by them", async () => {
    const plain = await b.newPage();
    await open(plain, { options: true });
    const measure = (page: Page) =>
      page.evaluate(() => {
        const q = (s: string) => document.querySelector(s) as HTMLElement;
        const cs = (s: string) => getComputedStyle(q(s));
        return {
          rowHeight: q(".chat-groups .chat-list-item").getBoundingClientRect().height,
          rowColor: cs(".chat-groups .chat-list-item__body-title").color,
          liPadding: cs(".chat-groups__list-item").padding,
          liListStyle: cs(".chat-groups__list-item").listStyleType,
          liBackground: cs(".chat-groups__list-item").backgroundColor,
          ulPadding: cs(".chat-groups__list").paddingLeft,
          titleSize: cs(".chat-groups .chat-list__header-title").fontSize,
          titleColor: cs(".chat-groups .chat-list__header-title").color,
          inputPadding: cs(".chat-groups .chat-search-bar__input").padding,
          inputSize: cs(".chat-groups .chat-search-bar__input").fontSize,
          subtitleSpacing: cs(".chat-groups__subtitle").letterSpacing,
          initialsSpacing: cs(".chat-groups .chat-avatar__text").letterSpacing,
          initialsColor: cs(".chat-groups .chat-avatar__text").color,
          titleDecoration: cs(".chat-groups .chat-list__header-title").textDecorationLine,
          searchIcon: [cs(".chat-groups .chat-search-bar__icon").fill, cs(".chat-groups .chat-search-bar__icon").width],
          statusIcon: [cs(".chat-groups .chat-list-item__status-icon").fill, cs(".chat-groups .chat-list-item__status-icon").width],
        };
      });
    const want = await measure(plain);

    const page = await b.newPage();
    await openCase(page, "groups-host", {}, { token: alice });
    await expect.poll(() => options(page).count(), SOON).toBe(30);
    const got = await measure(page);
    expect(got).toEqual(want);
    expect([want.subtitleSpacing, want.titleDecoration, want.searchIcon]).toEqual(["normal", "none", ["none", "16px"]]);
    // The host's own elements keep the host's styles.
    const host = await page.evaluate(() => {
      const cs = (s: string) => getComputedStyle(document.querySelector(s)!);
      return {
        li: [cs("#host-list li").color, cs("#host-list li").paddingTop, cs("#host-list li").listStyleType],
        ul: cs("#host-list").paddingLeft,
        button: [cs("#host-button").backgroundColor, cs("#host-button").paddingTop, cs("#host-button").fontSize],
        h2: [cs("#host-title").fontSize, cs("#host-title").color],
      };
    });
    expect(host).toEqual({
      li: ["rgb(255, 0, 0)", "30px", "square"],
      ul: "60px",
      button: ["rgb(255, 255, 0)", "20px", "30px"],
      h2: ["48px", "rgb(0, 0, 255)"],
    });
    // The kit's buttons ignore the host's button rule.
    await page.getByRole("option", { name: /Garden club 2/ }).first().hover();
    const leave = page.getByRole("button", { name: "Leave" });
    const btn = await leave.evaluate((el) => {
      const cs = getComputedStyle(el);
      return [cs.backgroundColor, cs.paddingTop, cs.fontSize, cs.textTransform, el.getBoundingClientRect().height];
    });
    expect(btn).toEqual(["rgb(255, 255, 255)", "0px", "12px", "none", 32]);
    await clearEvents(page);
    await leave.click();
    expect((await waitForEvent(page, "onOption")).args).toEqual(["leave", "g002"]);
    await screenshot(page, "groups/host-styles");
  });
});
