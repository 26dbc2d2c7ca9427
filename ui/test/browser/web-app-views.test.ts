// The web app on a real `agentry dev` (issue 23), part three: message search, presence, the
// date pinned over the list, the admin form's words and marks, reactions beyond the quick eight,
// long messages, the New messages line with Jump to first unread, a visibly streamed answer;
// and a tour of the main views at 1280 and 390 px (artifacts/web/tour/, copied to docs/images/web/).
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { frames, newPage, pageErrors, screenshot } from "./harness";
import { composer, main, send, useWebApp } from "./webapp";

const app = useWebApp();
const { signIn, expectAccessible } = app;
let n = 0;
const unique = (s: string) => `${s} ${Date.now() % 100000}-${++n}`;
const post = async (from: string, to: string, type: "user" | "group", text: string) =>
  app.dev().call<{ id: number }>("POST", "/messages", { receiver: to, receiverType: type, text }, await app.dev().mintToken(from));

describe("web app views on agentry dev", () => {
  test("search: everywhere and in the conversation, the keyword marked; a result opens its conversation at the message", async () => {
    const word = `zucchini${Date.now() % 100000}`;
    await post("bob", "alice", "user", `Did you buy the ${word}?`);
    await post("carol", "general", "group", `The ${word} soup was great`);
    for (let i = 0; i < 40; i++) await post("carol", "general", "group", `filler ${i}`);
    const alice = await signIn("Alice");
    await alice.getByRole("search", { name: "Messages" }).getByRole("searchbox", { name: "Search messages" }).fill(word);
    await alice.getByRole("search", { name: "Messages" }).getByRole("searchbox", { name: "Search messages" }).press("Enter");
    const panel = alice.getByRole("complementary", { name: "Search" });
    const results = panel.getByRole("list", { name: "Results" }).getByRole("button");
    await expect.poll(() => results.count()).toBe(2);
    expect(await results.first().textContent()).toContain("soup"); // newest first
    expect(await panel.locator("mark").first().textContent()).toBe(word);
    await panel.getByRole("status").getByText(`2 messages with “${word}”`).waitFor();
    await screenshot(alice, "web/search");
    await expectAccessible(alice, "search results");
    // The group result: General opens at the message (40 newer ones below), highlighted.
    await results.first().click();
    await main(alice).getByRole("heading", { name: "General" }).waitFor();
    await main(alice).locator(".chat-message-list__message--highlighted").filter({ hasText: "soup" }).waitFor();
    // In this conversation only.
    await alice.getByRole("search", { name: "Messages" }).getByRole("searchbox", { name: "Search messages" }).press("Enter");
    await panel.getByLabel("Where").selectOption("here");
    await expect.poll(() => results.count()).toBe(1);
    await panel.getByRole("searchbox", { name: "Search messages" }).fill("x");
    await panel.getByRole("button", { name: "Search", exact: true }).click();
    await panel.getByRole("alert").getByText("Type at least 2 characters").waitFor();
    expect(pageErrors(alice)).toEqual([]);
  });

  test("presence: online in the list and the header while the chat is open, last seen after", async () => {
    const alice = await signIn("Alice", "/user/carol");
    const row = alice.getByRole("list", { name: "People" }).getByRole("button", { name: /Carol/ });
    const carol = await signIn("Carol");
    // The directory reloads on focus: again until Carol's socket has made her online (her sign-in
    // may finish before the service counts her in).
    await expect
      .poll(async () => {
        await alice.evaluate(() => window.dispatchEvent(new Event("focus")));
        return row.getByText("Online").count();
      }, { interval: 500 })
      .toBe(1);
    await main(alice).getByRole("heading", { name: "Carol" }).waitFor();
    await main(alice).getByText("Online", { exact: true }).waitFor();
    await screenshot(alice, "web/presence");
    await carol.context().close();
    await expect
      .poll(async () => {
        await alice.evaluate(() => window.dispatchEvent(new Event("focus")));
        return row.locator(".agentry-web__list-sub").textContent();
      }, { timeout: 10_000, interval: 500 })
      .toMatch(/^Last seen (just now|1 min ago)$/);
    const users = await app.dev().call<{ items: { uid: string; status?: string; lastActiveAt?: string }[] }>("GET", "/users?limit=100", undefined, await app.dev().mintToken("alice"));
    expect(users.items.find((u) => u.uid === "carol")).toMatchObject({ status: "offline" });
  });
});

describe("web app views on agentry dev: the pinned date and the admin form", () => {
  test("the date pinned over the list: not while its separator shows, not twice, and it fades when scrolling stops", async () => {
    for (let i = 0; i < 30; i++) await post("bob", "carol", "user", `line ${i} of a long afternoon`);
    const carol = await signIn("Carol", "/user/bob");
    const list = main(carol).getByRole("log");
    await list.getByText("line 29 of a long afternoon").waitFor();
    const sticky = carol.locator(".chat-message-list__sticky-date");
    const scrollTo = (y: number) => list.evaluate((el, top) => { el.scrollTop = top; el.dispatchEvent(new Event("scroll")); }, y);
    await scrollTo(0);
    await frames(carol);
    expect(await sticky.count()).toBe(0);
    await scrollTo(20); // the Today separator still in view
    await frames(carol);
    expect(await sticky.count()).toBe(0);
    // Its class the moment it appears (it fades 1.5 s after the scroll: a busy machine may look later).
    const shown = await list.evaluate((el) => new Promise<string>((done) => {
      const look = () => {
        const d = document.querySelector(".chat-message-list__sticky-date");
        if (d) done(d.className);
        return !!d;
      };
      const mo = new MutationObserver(() => look() && mo.disconnect());
      mo.observe(document.body, { subtree: true, childList: true });
      el.scrollTop = 600;
      el.dispatchEvent(new Event("scroll"));
    }));
    expect(shown).not.toContain("--idle");
    expect(await sticky.textContent()).toBe("Today");
    await expect.poll(() => sticky.getAttribute("class")).toContain("chat-message-list__sticky-date--idle");
  });

  test("admin form: the switch says Disabled when off, required fields are marked, errors use the form's words, the provider fits a phone", async () => {
    const admin = await signIn("Admin", "/admin", { width: 390, height: 844 });
    await admin.getByRole("button", { name: "New agent" }).click();
    const form = admin.getByRole("main");
    await form.getByRole("heading", { name: "New agent" }).waitFor();
    const sw = form.getByRole("switch", { name: "Enabled" });
    expect(await sw.isChecked()).toBe(false);
    await form.locator(".agentry-web__switch-row").getByText("Disabled").waitFor();
    for (const f of ["provider", "agentId", "name", "deploymentUrl"]) {
      expect(await form.locator(`[data-field="${f}"] .agentry-web__required`).count(), f).toBe(1);
    }
    const select = form.getByLabel("Provider");
    expect(await select.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await form.getByLabel("Agent ID", { exact: true }).fill("not ok!");
    await form.getByText("Agent ID must be 1-64 letters, digits, _ or -").waitFor();
    expect(await form.getByText(/agentId/).count()).toBe(0);
    await form.getByLabel("Agent ID", { exact: true }).scrollIntoViewIfNeeded();
    await screenshot(admin, "web/admin-new-390");
    await expectAccessible(admin, "admin form at 390 px");
  });
});

describe("web app views on agentry dev: reactions, unread and streaming", () => {
  test("reactions beyond the quick eight, and a long message behind Show more", async () => {
    const long = Array.from({ length: 24 }, (_, i) => `Step ${i + 1}: stir.`).join("\n");
    await post("bob", "alice", "user", long);
    const alice = await signIn("Alice", "/user/bob");
    const msg = main(alice).getByRole("article").filter({ hasText: "Step 1: stir." });
    const more = msg.getByRole("button", { name: "Show more" });
    await more.waitFor();
    expect(await msg.locator(".chat-text-bubble__text").evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    await more.click();
    await msg.getByRole("button", { name: "Show less" }).waitFor();
    expect(await msg.locator(".chat-text-bubble__text").evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
    await msg.hover();
    await msg.getByRole("button", { name: "React" }).click();
    await alice.getByRole("menuitem", { name: "More reactions" }).click();
    const grid = alice.getByRole("dialog", { name: "Pick a reaction" });
    await grid.getByRole("searchbox", { name: "Search emoji" }).fill("taco");
    await grid.getByText("No emoji named “taco”").waitFor();
    await grid.getByRole("searchbox", { name: "Search emoji" }).fill("");
    await screenshot(alice, "web/emoji-grid");
    await expectAccessible(alice, "the full reaction picker");
    await grid.getByRole("searchbox", { name: "Search emoji" }).fill("rocket");
    await grid.getByRole("searchbox", { name: "Search emoji" }).press("ArrowDown");
    await alice.keyboard.press("Enter");
    await msg.getByRole("button", { name: /^🚀 1 reaction, including yours/ }).waitFor();
  });

  test("New messages line and Jump to first unread", async () => {
    const first = unique("first unread");
    await post("alice", "bob", "user", "read already");
    const bobToken = await app.dev().mintToken("bob");
    const page0 = await app.dev().call<{ items: { id: number }[] }>("GET", "/users/alice/messages?limit=1", undefined, bobToken);
    await app.dev().call("POST", `/messages/${page0.items[0]!.id}/read`, {}, bobToken);
    await post("alice", "bob", "user", first);
    for (let i = 0; i < 35; i++) await post("alice", "bob", "user", `news ${i}`);
    const bob = await signIn("Bob", "/user/alice");
    await main(bob).getByRole("log").getByText("news 34").waitFor();
    const jump = main(bob).getByRole("button", { name: "Jump to first unread" });
    await jump.waitFor();
    await screenshot(bob, "web/jump-unread");
    await expectAccessible(bob, "jump to first unread");
    await jump.click();
    const divider = main(bob).getByRole("separator", { name: "New messages" });
    await divider.waitFor();
    await expect.poll(() => divider.evaluate((el) => {
      const list = el.closest(".chat-message-list__list")!.getBoundingClientRect();
      const r = el.getBoundingClientRect();
      return r.top >= list.top - 1 && r.bottom <= list.bottom;
    })).toBe(true);
    await main(bob).getByRole("article").filter({ hasText: first }).waitFor();
    await jump.waitFor({ state: "detached" });
  });

  test("the chef's answer streams visibly with the offline model", async () => {
    const carol = await signIn("Carol", "/user/chef");
    await main(carol).getByText("Hi! What are we cooking today?").waitFor();
    // Every text the live bubble shows, recorded in the page as it changes.
    await carol.evaluate(() => {
      const seen: string[] = ((window as unknown as { __partials: string[] }).__partials = []);
      new MutationObserver(() => {
        for (const el of document.querySelectorAll(".chat-agent-live .chat-text-bubble__text")) if (!seen.includes(el.textContent ?? "")) seen.push(el.textContent ?? "");
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await send(carol, "What can I use instead of butter?");
    const live = main(carol).locator(".chat-agent-live .chat-text-bubble__text");
    await live.waitFor({ timeout: 20_000 });
    await live.waitFor({ state: "detached", timeout: 30_000 }); // the stored answer replaced it
    const seen = new Set(await carol.evaluate(() => (window as unknown as { __partials: string[] }).__partials));
    expect(seen.size, `partial texts seen: ${JSON.stringify([...seen])}`).toBeGreaterThan(2);
  });
});

describe("web app views on agentry dev: the tour", () => {
  test("tour: the main views at 1280 and 390 px", async () => {
    const guid = "tour";
    await app.dev().call("POST", "/groups", { guid, name: "Weekend trip", type: "public", description: "Planning the hike", members: [{ uid: "bob" }, { uid: "carol" }, { uid: "chef" }] }, await app.dev().mintToken("alice"));
    const hello = await post("bob", guid, "group", "Saturday 9:00 at the station?");
    await post("carol", guid, "group", "Works for me. @chef what should we pack for lunch?");
    await app.dev().call("POST", "/messages", { receiver: guid, receiverType: "group", text: "I'll bring the map", quotedMessageId: hello.id }, await app.dev().mintToken("alice"));
    await app.dev().call("POST", "/messages", { receiver: guid, receiverType: "group", text: "Bring rain jackets", parentId: hello.id }, await app.dev().mintToken("carol"));
    for (const [width, height] of [[1280, 800], [390, 844]] as const) {
      const at = `${width}`;
      const login = await newPage(app.browser(), app.dev().base, { viewport: { width, height } });
      await login.goto("/");
      await login.getByRole("button", { name: "Sign in as Alice" }).waitFor();
      await screenshot(login, `web/tour/login-${at}`);
      const alice = await signIn("Alice", "/", { width, height });
      // The group row previews its last message (Carol's, or the chef answering her mention).
      await alice.locator(".chat-groups").getByRole("option", { name: /Weekend trip/ }).getByText(/^(Carol|Chef): /).waitFor();
      await screenshot(alice, `web/tour/home-${at}`);
      await alice.goto(`/group/${guid}`);
      await main(alice).getByRole("heading", { name: "Weekend trip" }).waitFor();
      await main(alice).getByText("I'll bring the map").waitFor();
      // The chef's answer to Carol's mention, stored (not mid-stream), and the pinned date faded.
      await main(alice).getByRole("article").filter({ hasText: "scripted dev model" }).waitFor({ timeout: 30_000 });
      await expect.poll(() => main(alice).locator(".chat-agent-live").count(), { timeout: 30_000 }).toBe(0);
      await expect.poll(() => main(alice).locator(".chat-message-list__sticky-date:not(.chat-message-list__sticky-date--idle)").count()).toBe(0);
      await screenshot(alice, `web/tour/group-${at}`);
      await expectAccessible(alice, `group at ${at}`);
      await alice.goto(`/group/${guid}/thread/${hello.id}`);
      await alice.getByRole("complementary", { name: "Thread" }).getByText("Bring rain jackets").waitFor();
      await screenshot(alice, `web/tour/thread-${at}`);
      await alice.goto(`/group/${guid}`);
      await main(alice).getByRole("button", { name: "Group details" }).click();
      await alice.getByRole("complementary", { name: "Group details" }).getByText("Planning the hike").waitFor();
      await screenshot(alice, `web/tour/details-${at}`);
      await alice.goto("/user/chef");
      await main(alice).getByRole("heading", { name: "Chef" }).waitFor();
      const done = main(alice).getByText("The recipe card is on your screen. Enjoy your meal!");
      const before = await done.count();
      await send(alice, "I have eggs, spinach and feta. What can I cook?");
      await expect.poll(() => done.count(), { timeout: 30_000 }).toBe(before + 1);
      await expect.poll(() => main(alice).locator(".chat-agent-live").count(), { timeout: 30_000 }).toBe(0);
      await screenshot(alice, `web/tour/agent-${at}`);
      await expectAccessible(alice, `agent at ${at}`);
      await alice.goto("/");
      await alice.getByRole("search", { name: "Messages" }).getByRole("searchbox", { name: "Search messages" }).fill("station");
      await alice.getByRole("search", { name: "Messages" }).getByRole("searchbox", { name: "Search messages" }).press("Enter");
      await alice.getByRole("complementary", { name: "Search" }).getByRole("list", { name: "Results" }).waitFor();
      await screenshot(alice, `web/tour/search-${at}`);
      const admin = await signIn("Admin", "/admin", { width, height });
      await admin.getByRole("main").getByRole("heading", { name: /^Agent / }).waitFor();
      await screenshot(admin, `web/tour/admin-${at}`);
      await expectAccessible(admin, `admin at ${at}`);
    }
  });
});
