// Reactions on the real ChatMessageList against a real `agentry chat`: chips with counts (the
// user's own pressed), onReactionClick instead of the toggle, the toggle without it, and the
// detail view (paging, a filter per emoji, onReactionListItemClick); axe with it open.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { expectAccessible, expectNoErrors, openCase, screenshot, settled, useChat, waitForEvent } from "./harness";

const { chat, b } = useChat();
const tokens: Record<string, string> = {};
let id = 0;
beforeAll(async () => {
  for (const [uid, name] of [["alice", "Alice"], ["bob", "Bob"], ["carol", "Carol"], ["dave", "Dave"]] as const) {
    await chat.createUser(uid, name);
    tokens[uid] = await chat.mintToken(uid);
  }
  await chat.call("POST", "/groups", { guid: "kitchen", name: "Kitchen", type: "public", members: [{ uid: "bob" }, { uid: "carol" }, { uid: "dave" }] }, tokens.alice);
  id = (await chat.call<{ id: number }>("POST", "/messages", { receiver: "kitchen", receiverType: "group", text: "Pizza tonight" }, tokens.alice)).id;
  for (const [uid, emoji] of [["alice", "👍"], ["bob", "👍"], ["dave", "👍"], ["carol", "🎉"]] as const) {
    await chat.call("POST", `/messages/${id}/reactions/${encodeURIComponent(emoji)}`, undefined, tokens[uid]);
  }
});

const open = async (params: Record<string, unknown>) => {
  const page = await b.newPage();
  await openCase(page, "features-list", { group: "kitchen", ...params }, { token: tokens.alice });
  await page.locator("article", { hasText: "Pizza tonight" }).waitFor();
  return page;
};
const row = (page: Page) => page.locator("article", { hasText: "Pizza tonight" }).getByRole("group", { name: "Reactions" });

describe("ChatMessageList reactions", () => {
  test("chips show counts and the user's own; onReactionClick replaces the toggle", async () => {
    const page = await open({ reactionClick: true });
    const chips = row(page).locator("button[aria-pressed]");
    const shown = await chips.evaluateAll((bs) => bs.map((x) => [x.textContent, x.getAttribute("aria-pressed")]));
    expect(shown).toHaveLength(2);
    expect(shown).toEqual(expect.arrayContaining([["👍3", "true"], ["🎉1", "false"]]));
    await row(page).getByRole("button", { name: /^🎉 1 reaction/ }).click();
    expect((await waitForEvent(page, "onReactionClick")).args).toEqual(["🎉", 1, id]);
    await settled(page); // a toggle would have gone out with the click, and come back
    const stored = await chat.call<{ reactions?: { reaction: string; count: number }[] }>("GET", `/messages/${id}`, undefined, tokens.alice);
    expect(stored.reactions?.find((r) => r.reaction === "🎉")?.count).toBe(1); // not toggled
    await screenshot(page, "features/reactions", { selector: ".chat-message-list" });
    await expectNoErrors(page);
  });

  test("without onReactionClick a click toggles the user's own reaction", async () => {
    const page = await open({});
    await row(page).getByRole("button", { name: /^🎉 1 reaction$/ }).click();
    const mine = row(page).getByRole("button", { name: "🎉 2 reactions, including yours" });
    await mine.waitFor();
    await mine.click();
    await row(page).getByRole("button", { name: "🎉 1 reaction" }).waitFor();
    await expectNoErrors(page);
  });

  test("the detail view pages through who reacted, filters per emoji, and calls onReactionListItemClick", async () => {
    const page = await open({ reactionListItemClick: true, reactionsLimit: 2 });
    const opener = row(page).getByRole("button", { name: "Who reacted" });
    await opener.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Reactions" });
    const list = dialog.getByRole("list", { name: "People who reacted" });
    await list.getByRole("listitem").nth(1).waitFor();
    expect(await list.getByRole("listitem").count()).toBe(2); // one page of 2
    await dialog.getByRole("button", { name: "Load more" }).click();
    await list.getByRole("listitem").nth(3).waitFor();
    const names = await list.locator(".chat-reactions-detail__name").allTextContents();
    expect(names).toEqual(["You", "Bob", "Dave", "Carol"]);
    await expectAccessible(page);
    await screenshot(page, "features/reactions-detail");

    await dialog.getByRole("button", { name: "🎉 1" }).click();
    await list.locator(".chat-reactions-detail__name").filter({ hasText: "Carol" }).waitFor();
    expect(await list.locator(".chat-reactions-detail__name").allTextContents()).toEqual(["Carol"]);
    await list.getByRole("button", { name: /Carol/ }).click();
    expect((await waitForEvent(page, "onReactionListItemClick")).args).toEqual(["🎉", "carol", id]);

    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Who reacted");
    await expectNoErrors(page);
  });

  test("a right click on a chip opens the detail view on that emoji", async () => {
    const page = await open({});
    await row(page).getByRole("button", { name: /^👍 3/ }).click({ button: "right" });
    const dialog = page.getByRole("dialog", { name: "Reactions" });
    await dialog.waitFor();
    expect(await dialog.getByRole("button", { name: "👍 3" }).getAttribute("aria-pressed")).toBe("true");
    const names = dialog.locator(".chat-reactions-detail__name");
    await names.nth(2).waitFor();
    expect(await names.allTextContents()).toEqual(["You", "Bob", "Dave"]);
    await expectNoErrors(page);
  });
});
