// The web app's conversation on a real `agentry dev` (issue 23): quote replies, unread counts
// that reading clears (thread replies and "X added Y" do not count), the Recent preview after a
// delete, a disabled agent gone from Recent, the typing indicator ending with the text, the
// offline banner and the send that waits for the connection, a group joined elsewhere, a URL
// per conversation and thread, and attachments. Screenshots in artifacts/web/.
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { pageErrors, screenshot, settled } from "./harness";
import { composer, main, send, useWebApp } from "./webapp";

const app = useWebApp();
const { signIn, expectAccessible } = app;
let n = 0;
const unique = (s: string) => `${s}-${Date.now() % 100000}-${++n}`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A group owned by `owner` with these members, made through the API as the owner. */
async function makeGroup(owner: string, members: string[], name = "Team"): Promise<string> {
  const guid = unique("team");
  await app.dev().call("POST", "/groups", { guid, name: `${name} ${guid.slice(5)}`, type: "public", members: members.map((uid) => ({ uid })) }, await app.dev().mintToken(owner));
  return guid;
}
const recent = (p: Page) => p.getByRole("region", { name: "Direct messages" });
/** A group's row in the sidebar's Groups list (its last message and unread count live there). */
const groupRow = (p: Page, name: RegExp) => p.locator(".chat-groups").getByRole("option", { name });

describe("web app conversations on agentry dev", () => {
  test("quote reply: the composer shows what is answered, the reply carries and shows the quote, the quote leads to the original", async () => {
    const [alice, bob] = await Promise.all([signIn("Alice", "/group/general"), signIn("Bob", "/group/general")]);
    const question = unique("Where shall we meet?");
    await main(alice).getByRole("heading", { name: "General" }).waitFor();
    await main(bob).getByRole("heading", { name: "General" }).waitFor();
    await send(alice, question);
    const original = main(bob).getByRole("article").filter({ hasText: question });
    await original.hover();
    await original.getByRole("button", { name: "Reply", exact: true }).click();
    const preview = main(bob).getByRole("group", { name: "Replying to Alice" });
    await preview.getByText(question).waitFor();
    await expect.poll(() => bob.evaluate(() => document.activeElement?.tagName)).toBe("TEXTAREA");
    await screenshot(bob, "web/quote-composer");
    await expectAccessible(bob, "composer replying to a message");
    // Escape cancels; Reply again, then send.
    await composer(bob).press("Escape");
    await preview.waitFor({ state: "detached" });
    await original.hover();
    await original.getByRole("button", { name: "Reply", exact: true }).click();
    await send(bob, "At the station");
    await preview.waitFor({ state: "detached" });
    for (const p of [alice, bob]) {
      const reply = main(p).getByRole("article").filter({ hasText: "At the station" });
      await reply.getByRole("button", { name: new RegExp(`^Quoting\\s*(Alice|You)\\s*:\\s*${escape(question)}`) }).waitFor();
    }
    const page = await app.dev().call<{ items: { text?: string; quotedMessageId?: number; quotedMessage?: { text?: string } }[] }>(
      "GET", "/groups/general/messages?limit=5", undefined, await app.dev().mintToken("carol"));
    const stored = page.items.find((m) => m.text === "At the station");
    expect(stored?.quotedMessage?.text).toBe(question);
    // The quote leads to the original, highlighted.
    await main(alice).getByRole("article").filter({ hasText: "At the station" }).getByRole("button", { name: /^Quoting\s*You/ }).click();
    await main(alice).locator(".chat-message-list__message--highlighted").filter({ hasText: question }).waitFor();
    await screenshot(alice, "web/quote-reply");
    await expectAccessible(alice, "a quote reply");
    expect(pageErrors(alice)).toEqual([]);
    expect(pageErrors(bob)).toEqual([]);
  });

  test("unread: a thread reply and an addition do not count; reading clears the badge for good", async () => {
    const guid = await makeGroup("alice", ["bob"]);
    const alice = await app.dev().mintToken("alice");
    await app.dev().call("POST", `/groups/${guid}/members`, { members: [{ uid: "carol" }] }, alice);
    const top = await app.dev().call<{ id: number }>("POST", "/messages", { receiver: guid, receiverType: "group", text: "Standup moved to 10" }, alice);
    await app.dev().call("POST", "/messages", { receiver: guid, receiverType: "group", text: "ok", parentId: top.id }, await app.dev().mintToken("bob"));
    const carol = await signIn("Carol");
    const row = groupRow(carol, new RegExp(`Team ${guid.slice(5)}`));
    await row.waitFor();
    await expect.poll(() => row.getByLabel(/unread/).textContent()).toBe("1");
    await row.click();
    await main(carol).getByText("Standup moved to 10").waitFor();
    await main(carol).getByRole("button", { name: "1 reply" }).waitFor();
    // Read on the server: a reload shows no badge (the badge comes with the row, one answer).
    const carols = await app.dev().mintToken("carol");
    await expect
      .poll(async () => (await app.dev().call<{ items: { conversationId: string; unreadMessageCount: number }[] }>("GET", "/conversations?type=group", undefined, carols)).items
        .find((c) => c.conversationId === `group_${guid}`)?.unreadMessageCount)
      .toBe(0);
    await carol.goto("/");
    await row.waitFor();
    expect(await row.getByLabel(/unread/).count()).toBe(0);
  });
});

describe("web app conversations on agentry dev: Recent and typing", () => {
  test("a deleted last message leaves the Recent preview at once, for both sides", async () => {
    const [alice, bob] = await Promise.all([signIn("Alice", "/user/bob"), signIn("Bob")]);
    await main(alice).getByRole("heading", { name: "Bob" }).waitFor();
    const secret = unique("oops, wrong chat");
    await send(alice, secret);
    const bobsRow = recent(bob).getByRole("button", { name: /Alice/ });
    await bobsRow.getByText(secret).waitFor({ timeout: 10_000 });
    await recent(alice).getByRole("button", { name: /Bob/ }).getByText(`You: ${secret}`).waitFor();
    const mine = main(alice).getByRole("article").filter({ hasText: secret });
    await mine.hover();
    await mine.getByRole("button", { name: "More options" }).click();
    await alice.getByRole("menuitem", { name: "Delete" }).click();
    await alice.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await recent(alice).getByRole("button", { name: /Bob/ }).getByText("You: Message deleted").waitFor();
    await bobsRow.getByText("Message deleted").waitFor();
    expect(await bob.getByText(secret).count()).toBe(0);
  });

  test("a disabled agent leaves Recent and does not come back on reload as a raw id", async () => {
    const carol = await signIn("Carol", "/user/weather");
    await main(carol).getByRole("heading", { name: /Weather/i }).waitFor();
    await send(carol, "Is it raining in Lisbon?");
    await recent(carol).getByRole("button", { name: /Weather/i }).waitFor({ timeout: 10_000 });
    await app.dev().call("POST", "/agents/weather/disable");
    try {
      await recent(carol).getByRole("button", { name: /weather/i }).waitFor({ state: "detached" });
      await carol.reload();
      await carol.getByText("Signed in as").waitFor();
      await carol.getByRole("list", { name: "Agents" }).getByRole("button", { name: /Chef/ }).waitFor();
      await settled(carol); // Recent too has loaded and rendered
      expect(await carol.getByRole("navigation", { name: "Conversations" }).getByText(/weather/i).count()).toBe(0);
      // Its URL says it cannot be opened instead of opening a person chat.
      await carol.goto("/user/weather");
      await main(carol).getByRole("alert").getByText(/can't be opened/).waitFor();
      expect(new URL(carol.url()).pathname).toBe("/");
    } finally {
      await app.dev().call("POST", "/agents/weather/enable");
    }
  });

  test("typing ends for the other side as soon as the text is cleared", async () => {
    const [alice, bob] = await Promise.all([signIn("Alice", "/user/carol"), signIn("Carol", "/user/alice")]);
    await main(alice).getByRole("heading", { name: "Carol" }).waitFor();
    await main(bob).getByRole("heading", { name: "Alice" }).waitFor();
    await composer(alice).pressSequentially("Are you", { delay: 20 });
    const typing = main(bob).getByRole("status").filter({ hasText: /typing/i });
    await typing.waitFor();
    const cleared = Date.now();
    await composer(alice).fill("");
    // At once, not by the 10 s a received indicator lasts unrenewed (a busy machine may take a few seconds).
    await typing.waitFor({ state: "detached", timeout: 8_000 });
    expect(Date.now() - cleared).toBeLessThan(8_000);
  });
});

describe("web app conversations on agentry dev: offline, tabs and URLs", () => {
  test("offline: a banner, the message waits instead of failing and goes out when the connection is back", async () => {
    const [alice, bob] = await Promise.all([signIn("Alice", "/user/bob"), signIn("Bob", "/user/alice")]);
    await main(alice).getByRole("heading", { name: "Bob" }).waitFor();
    await main(bob).getByRole("heading", { name: "Alice" }).waitFor();
    // Alice's list has loaded (its log, or the empty view): offline from here on, only the send
    // waits. (Chromium's offline mode keeps an open socket, so a load that failed then would not
    // be retried by a reconnect.)
    await main(alice).locator(".chat-message-list__list, .chat-message-list__empty-state-view").waitFor();
    await alice.context().setOffline(true);
    await main(alice).getByText("You're offline.", { exact: false }).waitFor();
    const text = unique("sent from the train");
    await send(alice, text);
    const waiting = main(alice).getByRole("list", { name: "Messages waiting to be sent" });
    await waiting.getByText(text).waitFor({ timeout: 10_000 });
    expect(await main(alice).getByText(/Failed to fetch/).count()).toBe(0);
    await screenshot(alice, "web/offline");
    await expectAccessible(alice, "offline with a waiting message");
    await alice.context().setOffline(false);
    await main(bob).getByRole("article").filter({ hasText: text }).waitFor({ timeout: 20_000 });
    await waiting.waitFor({ state: "detached", timeout: 10_000 });
    await main(alice).getByText("You're offline.", { exact: false }).waitFor({ state: "detached" });
    // Whatever failed while offline clears by itself once back: polled, since the retry and the
    // banner's removal are not one moment (CI saw the check race).
    await expect.poll(async () => (await main(alice).getByRole("alert").allTextContents()).join(" | ")).toBe("");
    // Stored once (the retry carried the same muid).
    const msgs = await app.dev().call<{ items: { text?: string }[] }>("GET", "/users/bob/messages?limit=10", undefined, await app.dev().mintToken("alice"));
    expect(msgs.items.filter((m) => m.text === text)).toHaveLength(1);
  });

  test("a group joined in another tab appears as joined in this one, live", async () => {
    const guid = await makeGroup("alice", [], "Book club");
    const first = await signIn("Bob");
    const groups = first.locator(".chat-groups");
    const row = groups.getByRole("option", { name: new RegExp(`Book club ${guid.slice(5)}`) });
    await row.getByText("1 member").waitFor();
    await app.dev().call("POST", `/groups/${guid}/join`, {}, await app.dev().mintToken("bob"));
    // The row follows without a reload: its last message, the join, replaces the member count.
    await row.getByText(/joined/).waitFor();
    await expect.poll(() => first.getByRole("region", { name: "Direct messages" }).getByText(/Book club/).count()).toBe(0);
  });

  test("a URL per conversation and thread: reload, back and forward and a shared link land there", async () => {
    const alice = await signIn("Alice", "/group/general");
    await main(alice).getByRole("heading", { name: "General" }).waitFor();
    expect(await alice.title()).toBe("General · Agentry chat");
    const text = unique("threaded question");
    await send(alice, text);
    const msg = main(alice).getByRole("article").filter({ hasText: text });
    await msg.hover();
    await msg.getByRole("button", { name: "Reply in thread" }).click();
    await alice.getByRole("complementary", { name: "Thread" }).waitFor();
    const threadPath = new URL(alice.url()).pathname;
    expect(threadPath).toMatch(/^\/group\/general\/thread\/\d+$/);
    await alice.getByRole("list", { name: "People" }).getByRole("button", { name: /Bob/ }).click();
    await main(alice).getByRole("heading", { name: "Bob" }).waitFor();
    expect(new URL(alice.url()).pathname).toBe("/user/bob");
    await alice.goBack();
    await alice.getByRole("complementary", { name: "Thread" }).getByText(text).first().waitFor();
    await alice.goForward();
    await main(alice).getByRole("heading", { name: "Bob" }).waitFor();
    await alice.reload();
    await main(alice).getByRole("heading", { name: "Bob" }).waitFor();
    // Bob opens the shared thread link.
    const bob = await signIn("Bob", threadPath);
    await bob.getByRole("complementary", { name: "Thread" }).getByText(text).first().waitFor();
    await main(bob).getByRole("heading", { name: "General" }).waitFor();
  });
});

describe("web app conversations on agentry dev: attachments", () => {
  test("attachments: pick, paste and drop files, previews, then one message each", async () => {
    const alice = await signIn("Alice", "/user/carol");
    await main(alice).getByRole("heading", { name: "Carol" }).waitFor();
    // Pick.
    const chooser = alice.waitForEvent("filechooser");
    await main(alice).getByRole("button", { name: "Attach files" }).click();
    await (await chooser).setFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("shopping list: eggs, feta") });
    const files = main(alice).getByRole("list", { name: "Files to send" });
    await files.getByText("notes.txt").waitFor();
    // Paste an image and drop another file.
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    await composer(alice).evaluate((el, b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], "dot.png", { type: "image/png" }));
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, png);
    await files.getByText("dot.png").waitFor();
    await main(alice).locator("form").evaluate((form) => {
      const dt = new DataTransfer();
      dt.items.add(new File(["a,b\n1,2\n"], "table.csv", { type: "text/csv" }));
      form.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
      form.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await files.getByText("table.csv").waitFor();
    expect(await files.getByRole("img").count()).toBe(0); // the thumbnail is decorative (alt="")
    expect(await files.locator("img").count()).toBe(1);
    await screenshot(alice, "web/attachments");
    await expectAccessible(alice, "composer with files");
    await files.getByRole("button", { name: "Remove table.csv" }).click();
    await composer(alice).fill("for the weekend");
    await composer(alice).press("Enter");
    await files.waitFor({ state: "detached", timeout: 15_000 });
    const msgs = await app.dev().call<{ items: { type: string; text?: string; attachment?: { name: string } }[] }>(
      "GET", "/users/carol/messages?limit=10", undefined, await app.dev().mintToken("alice"));
    const media = msgs.items.filter((m) => m.attachment).map((m) => [m.type, m.attachment?.name, m.text ?? ""]);
    expect(media.slice(-2)).toEqual([["file", "notes.txt", "for the weekend"], ["image", "dot.png", ""]]);
    await main(alice).getByRole("article").filter({ hasText: "notes.txt" }).waitFor();
    expect(pageErrors(alice)).toEqual([]);
  });
});
