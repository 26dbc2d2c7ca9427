// ChatMessageList live, against a real `agentry chat`: a second user (REST with their own
// token) sends, edits, deletes, reacts, types and reads while the page shows the list; threads
// and reply counts; group names, avatars and action messages; following new messages at the
// bottom versus the new-messages indicator when scrolled up; marking read. Screenshots under
// artifacts/message-list/.
import { describe, expect, test } from "vitest";
import { expectAccessible, frames, openCase, pageErrors, screenshot, useChat, waitForEvent } from "./harness";
import { article, conversation, firstVisible, gapToBottom, group, LIST, people, send, texts, type WireMessage } from "./message-list.fixtures";

const { chat, b } = useChat();

describe("ChatMessageList live", () => {
  test("a second user's messages, edits, deletes, reactions, receipts and typing appear live", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    const mine = await send(chat, alice, bob.uid, "Lunch at noon?");
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid }, { token: alice.token });
    await expect.poll(() => texts(page)).toEqual(["Lunch at noon?"]);

    const his = await send(chat, bob, alice.uid, "Sure, where?");
    await expect.poll(() => texts(page)).toEqual(["Lunch at noon?", "Sure, where?"]);
    // On screen with the window focused: Alice's list marks it read (Bob sees the receipt).
    expect((await waitForEvent(page, "ccMessageRead")).args).toEqual([his.id]);
    await expect.poll(async () => (await chat.call<WireMessage>("GET", `/messages/${his.id}`, undefined, bob.token)).readAt).toBeTruthy();

    await chat.call("PUT", `/messages/${his.id}`, { text: "Sure, where? The usual place?" }, bob.token);
    await expect.poll(() => texts(page)).toEqual(["Lunch at noon?", "Sure, where? The usual place?"]);
    expect(await article(page, "The usual place").locator(".chat-message-bubble__edited").count()).toBe(1);

    await chat.call("POST", `/messages/${mine.id}/reactions/${encodeURIComponent("🎉")}`, undefined, bob.token);
    await expect.poll(() => article(page, "Lunch at noon?").textContent()).toContain("🎉");

    const receipt = () => article(page, "Lunch at noon?").locator(".chat-receipt").getAttribute("aria-label");
    expect(await receipt()).toBe("Sent");
    await chat.call("POST", `/messages/${mine.id}/delivered`, undefined, bob.token);
    await expect.poll(receipt).toBe("Delivered");
    await chat.call("POST", `/messages/${mine.id}/read`, undefined, bob.token);
    await expect.poll(receipt).toBe("Read");

    const typing = page.locator(".chat-message-list__typing");
    await chat.call("POST", "/typing/start", { receiver: alice.uid, receiverType: "user" }, bob.token);
    await expect.poll(() => typing.textContent()).toBe("Bob is typing…");
    await screenshot(page, "message-list/live");
    await expectAccessible(page);
    await chat.call("POST", "/typing/end", { receiver: alice.uid, receiverType: "user" }, bob.token);
    await expect.poll(() => typing.textContent()).toBe("");

    await chat.call("DELETE", `/messages/${his.id}`, undefined, bob.token);
    await expect.poll(() => page.locator(".chat-message-bubble .chat-delete-bubble").textContent()).toBe("This message was deleted");
    expect(await texts(page)).toEqual(["Lunch at noon?"]);
    await screenshot(page, "message-list/live-deleted");
    expect(pageErrors(page)).toEqual([]);
  });

  test("threads: the parentMessageId list shows the replies live; the main list counts them on the parent", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    const guid = `kitchen-${alice.uid}`;
    await group(chat, guid, "Kitchen", alice, [bob]);
    const root = await send(chat, bob, guid, "Who brings dessert?", { group: true });
    await send(chat, alice, guid, "I can bake", { group: true, parentId: root.id });

    const main = await b.newPage();
    await openCase(main, "message-list", { group: guid }, { token: alice.token });
    await expect.poll(() => texts(main)).toEqual(["Who brings dessert?"]);
    const replies = main.locator(".chat-message-bubble__thread-view-replies");
    expect(await replies.textContent()).toBe("1 reply");

    const thread = await b.newPage();
    await openCase(thread, "message-list", { group: guid, parentMessageId: root.id }, { token: alice.token });
    await expect.poll(() => texts(thread)).toEqual(["I can bake"]);
    expect(await thread.getByRole("log", { name: "Replies in the thread" }).count()).toBe(1);

    await send(chat, bob, guid, "Great, thanks!", { group: true, parentId: root.id });
    await send(chat, bob, guid, "Not in the thread", { group: true });
    await expect.poll(() => texts(thread)).toEqual(["I can bake", "Great, thanks!"]);
    await expect.poll(() => replies.textContent()).toBe("2 replies");
    await expect.poll(() => texts(main)).toEqual(["Who brings dessert?", "Not in the thread"]);
    await replies.click();
    expect((await waitForEvent(main, "onThreadRepliesClick")).args).toEqual([root.id]);
    await screenshot(thread, "message-list/thread");
    await screenshot(main, "message-list/thread-parent");
  });
});

describe("ChatMessageList live: groups and the bottom", () => {
  test("groups: sender names and avatars, live action messages; hideAvatar, hideGroupActionMessages, hideReceipts", async () => {
    const { alice, bob, carol, dave } = await people(chat, ["alice", "bob", "carol", "dave"]);
    const guid = `team-${alice.uid}`;
    await group(chat, guid, "Team", alice, [bob, carol]);
    await send(chat, bob, guid, "Morning all", { group: true });
    await send(chat, bob, guid, "Standup in 5", { group: true });
    await send(chat, carol, guid, "On my way", { group: true });
    await send(chat, alice, guid, "Starting now", { group: true });
    const page = await b.newPage();
    await openCase(page, "message-list", { group: guid }, { token: alice.token });
    await expect.poll(() => texts(page)).toEqual(["Morning all", "Standup in 5", "On my way", "Starting now"]);
    expect(await page.locator(".chat-message-bubble__sender-name").allTextContents()).toEqual(["Bob", "Carol"]);
    expect(await page.locator(".chat-message-bubble-incoming .chat-avatar").count()).toBe(2);
    expect(await page.getByText("Carol joined").count()).toBe(1); // history
    await chat.call("POST", `/groups/${guid}/join`, {}, dave.token);
    await page.getByText("Dave joined").waitFor();
    await expectAccessible(page);
    await screenshot(page, "message-list/group");

    const hidden = await b.newPage();
    await openCase(hidden, "message-list", { group: guid, props: { hideAvatar: true, hideGroupActionMessages: true, hideReceipts: true } }, { token: alice.token });
    await expect.poll(() => texts(hidden)).toEqual(["Morning all", "Standup in 5", "On my way", "Starting now"]);
    expect(await hidden.locator(".chat-avatar, .chat-receipt, .chat-message-list__message--action").count()).toBe(0);
    expect(await hidden.locator(".chat-message-bubble__sender-name").count()).toBe(2);
  });

  test("follows new messages at the bottom; scrolled up, a new-messages indicator jumps down", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 40);
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid }, { token: alice.token });
    await expect.poll(() => texts(page).then((t) => t.at(-1))).toBe("m 40");

    await send(chat, bob, alice.uid, "at the bottom");
    await expect.poll(() => texts(page).then((t) => t.at(-1))).toBe("at the bottom");
    await expect.poll(() => gapToBottom(page)).toBeLessThanOrEqual(1);
    const indicator = page.locator(".chat-message-list__new-message-indicator");
    expect(await indicator.count()).toBe(0);

    await page.evaluate((sel) => { const s = document.querySelector<HTMLElement>(sel)!; s.scrollTop = s.scrollHeight / 2; }, LIST);
    await frames(page); // the list has seen the reader scroll up
    const before = await firstVisible(page);
    await send(chat, bob, alice.uid, "while scrolled up 1");
    await send(chat, bob, alice.uid, "while scrolled up 2");
    await expect.poll(() => indicator.textContent()).toBe("2 new messages");
    const after = await firstVisible(page);
    expect([after.id, Math.round(after.offset)]).toEqual([before.id, Math.round(before.offset)]);
    expect(await gapToBottom(page)).toBeGreaterThan(100);
    await expectAccessible(page);
    await screenshot(page, "message-list/new-messages-indicator");
    await indicator.click();
    await expect.poll(() => gapToBottom(page)).toBeLessThanOrEqual(1);
    expect(await indicator.count()).toBe(0);
    expect((await texts(page)).at(-1)).toBe("while scrolled up 2");

    // The reader's own message (sent elsewhere) brings the list down too.
    await page.evaluate((sel) => { const s = document.querySelector<HTMLElement>(sel)!; s.scrollTop = s.scrollHeight / 2; }, LIST);
    await frames(page); // the list has seen the reader scroll up
    await send(chat, alice, bob.uid, "my own");
    await expect.poll(() => gapToBottom(page)).toBeLessThanOrEqual(1);
  });
});

describe("ChatMessageList live: following, moderation and group receipts", () => {
  test("scrollToBottomOnNewMessages follows new messages even when scrolled up", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 40);
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid, props: { scrollToBottomOnNewMessages: true } }, { token: alice.token });
    await expect.poll(() => texts(page).then((t) => t.at(-1))).toBe("m 40");
    await page.evaluate((sel) => { const s = document.querySelector<HTMLElement>(sel)!; s.scrollTop = s.scrollHeight / 2; }, LIST);
    await frames(page); // the list has seen the reader scroll up
    expect(await gapToBottom(page)).toBeGreaterThan(100);
    await send(chat, bob, alice.uid, "come down");
    await expect.poll(() => gapToBottom(page)).toBeLessThanOrEqual(1);
    expect(await page.locator(".chat-message-list__new-message-indicator").count()).toBe(0);
  });

  test("moderation: the sender sees a held-back message with the moderation view; approval shows it to the others live", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await send(chat, bob, alice.uid, "Plans for tonight?");
    await chat.call("PUT", "/moderation/rules", { rules: [{ kind: "word", pattern: "zebracake", action: "pending" }] });
    try {
      const sender = await b.newPage();
      await openCase(sender, "message-list", { user: bob.uid }, { token: alice.token });
      const other = await b.newPage();
      await openCase(other, "message-list", { user: alice.uid }, { token: bob.token });
      await expect.poll(() => texts(other)).toEqual(["Plans for tonight?"]);
      const held = await send(chat, alice, bob.uid, "Bring the zebracake");
      const note = sender.locator(".chat-message-bubble__moderation-view");
      await expect.poll(() => note.textContent()).toMatch(/^Awaiting moderation/);
      await screenshot(sender, "message-list/moderation-pending");
      await chat.call("PUT", `/messages/${held.id}`, { text: "Bring the zebracake please" }, alice.token).catch(() => undefined);
      expect(await texts(other)).toEqual(["Plans for tonight?"]);
      await chat.call("PUT", `/moderation/messages/${held.id}`, { status: "approved" });
      await expect.poll(() => texts(other).then((t) => t.at(-1))).toMatch(/^Bring the zebracake/);
      await expect.poll(() => note.count()).toBe(0);
    } finally {
      await chat.call("PUT", "/moderation/rules", { rules: [] });
    }
  });

  test("group receipts: read by all members shows Read, one member's receipt does not", async () => {
    const { alice, bob, carol } = await people(chat, ["alice", "bob", "carol"]);
    const guid = `crew-${alice.uid}`;
    await group(chat, guid, "Crew", alice, [bob, carol]);
    const m = await send(chat, alice, guid, "Meeting moved to 3", { group: true });
    const page = await b.newPage();
    await openCase(page, "message-list", { group: guid }, { token: alice.token });
    const receipt = () => article(page, "Meeting moved").locator(".chat-receipt").getAttribute("aria-label");
    await expect.poll(receipt).toBe("Sent");
    await chat.call("POST", `/messages/${m.id}/read`, undefined, bob.token);
    expect(await receipt()).toBe("Sent");
    // Carol's receipts come after Bob's on the same socket: had his read made it "Read", it would
    // not be "Delivered" next.
    await chat.call("POST", `/messages/${m.id}/delivered`, undefined, carol.token);
    await expect.poll(receipt).toBe("Delivered");
    await chat.call("POST", `/messages/${m.id}/read`, undefined, carol.token);
    await expect.poll(receipt).toBe("Read");
    // A reloaded list agrees with what the live one showed.
    const again = await b.newPage();
    await openCase(again, "message-list", { group: guid }, { token: alice.token });
    await expect.poll(() => article(again, "Meeting moved").locator(".chat-receipt").getAttribute("aria-label")).toBe("Read");
    await screenshot(again, "message-list/group-receipts-reloaded");
    await again.close();
  });
});

describe("ChatMessageList live: media and keyboard", () => {
  test("media: an image sent by the other user loads with the session's token (object URL)", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await send(chat, bob, alice.uid, "Look at this");
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid }, { token: alice.token });
    await expect.poll(() => texts(page)).toEqual(["Look at this"]);
    const png = await page.evaluate(() => {
      const c = document.createElement("canvas");
      c.width = 240;
      c.height = 140;
      const g = c.getContext("2d")!;
      g.fillStyle = "#f3c969";
      g.fillRect(0, 0, 240, 140);
      g.fillStyle = "#6852d6";
      g.beginPath();
      g.arc(120, 70, 45, 0, Math.PI * 2);
      g.fill();
      return c.toDataURL("image/png").split(",")[1]!;
    });
    const form = new FormData();
    form.set("file", new Blob([Buffer.from(png, "base64")], { type: "image/png" }), "pie.png");
    form.set("receiver", alice.uid);
    form.set("receiverType", "user");
    form.set("type", "image");
    form.set("text", "Fresh out of the oven");
    const res = await fetch(`${chat.api}/messages/media`, { method: "POST", headers: { authorization: `Bearer ${bob.token}` }, body: form });
    expect(res.status, await res.clone().text()).toBe(201);
    const img = page.locator("img.chat-image-bubble__image");
    await expect.poll(() => img.getAttribute("src")).toMatch(/^blob:/);
    expect(await img.getAttribute("alt")).toBe("Fresh out of the oven");
    await expect.poll(() => img.evaluate((e: HTMLImageElement) => e.naturalWidth)).toBe(240);
    await expect.poll(() => gapToBottom(page)).toBeLessThanOrEqual(1); // still at the bottom after the image grew
    await screenshot(page, "message-list/media");
  });

  test("keyboard: one tab stop for the list, arrows move between messages, focus shows the options", async () => {
    const { alice, bob } = await people(chat, ["alice", "bob"]);
    await conversation(chat, alice, bob, 4);
    const page = await b.newPage();
    await openCase(page, "message-list", { user: bob.uid }, { token: alice.token });
    await expect.poll(() => texts(page).then((t) => t.length)).toBe(4);
    const focused = () => page.evaluate(() => document.activeElement?.closest("article")?.querySelector(".chat-text-bubble__text")?.textContent ?? document.activeElement?.tagName);
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("m 4");
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("ARTICLE");
    const options = page.locator("article:focus-within .chat-message-bubble__options");
    expect(await options.evaluate((e) => getComputedStyle(e).visibility)).toBe("visible");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    expect(await focused()).toBe("m 2");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("BUTTON");
    expect(await focused()).toBe("m 2"); // an option of that message
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("End");
    expect(await focused()).toBe("m 4");
    await screenshot(page, "message-list/keyboard");
  });
});
