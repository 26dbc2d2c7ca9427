// Message options on the real ChatMessageList against a real `agentry chat`: which options each
// message offers under each hide/show prop, quick options and the overflow menu by keyboard,
// and every option doing its thing (reply, thread, edit, delete, react, privately, copy, info,
// report with remark, mark unread); axe with menus and dialogs open.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { expectAccessible, expectNoErrors, openCase, screenshot, useChat, waitForEvent, waitUntil } from "./harness";

interface Msg {
  id: number;
}

const { chat, b } = useChat();
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};
beforeAll(async () => {
  for (const [uid, name] of [["alice", "Alice"], ["bob", "Bob"], ["carol", "Carol"]] as const) {
    await chat.createUser(uid, name);
    tokens[uid] = await chat.mintToken(uid);
  }
  await chat.call("POST", "/groups", { guid: "kitchen", name: "Kitchen", type: "public", members: [{ uid: "bob" }, { uid: "carol" }] }, tokens.alice);
  const send = async (from: string, receiver: string, receiverType: "user" | "group", text: string) =>
    (await chat.call<Msg>("POST", "/messages", { receiver, receiverType, text }, tokens[from])).id;
  ids.question = await send("bob", "alice", "user", "Hello Alice, what time is dinner?");
  ids.answer = await send("alice", "bob", "user", "Around seven");
  ids.toDelete = await send("alice", "bob", "user", "Bring wine");
  ids.groupBob = await send("bob", "kitchen", "group", "Who brings dessert?");
  ids.groupAlice = await send("alice", "kitchen", "group", "I will");
  // Bob read Alice's messages: the info dialog has a read receipt to show.
  await chat.call("POST", `/messages/${ids.toDelete}/read`, undefined, tokens.bob);
});

const open = async (params: Record<string, unknown>) => {
  const page = await b.newPage();
  await openCase(page, "features-list", params, { token: tokens.alice });
  await page.locator("article").first().waitFor();
  return page;
};
const article = (page: Page, text: string) => page.locator("article", { hasText: text }).last();
const optionsOf = async (page: Page, text: string) => {
  const a = article(page, text);
  await a.hover();
  return a.getByRole("group", { name: "Message options" });
};
/** Every option of a message: quick buttons, then the overflow menu's items. */
const optionLabels = async (page: Page, text: string): Promise<string[]> => {
  const a = article(page, text);
  await a.hover();
  const g = a.getByRole("group", { name: "Message options" });
  if (!(await g.count())) return [];
  const quick = await g.locator(":scope > button").evaluateAll((bs) => bs.map((x) => x.getAttribute("aria-label") ?? ""));
  const more = g.getByRole("button", { name: "More options" });
  if (!(await more.count())) return quick;
  await more.click();
  const rest = await page.getByRole("menuitem").allTextContents();
  await page.keyboard.press("Escape");
  return [...quick, ...rest];
};

describe("ChatMessageList options", () => {
  test("each option is shown by default where it applies and hidden by its prop", async () => {
    const all = { user: "bob", quickOptionsCount: 20, showMarkAsUnreadOption: true };
    let page = await open(all);
    expect(await optionLabels(page, "Around seven")).toEqual(["React", "Reply", "Reply in thread", "Copy", "Edit", "Message info", "Delete"]);
    expect(await optionLabels(page, "what time is dinner")).toEqual(["React", "Reply", "Reply in thread", "Copy", "Mark as unread", "Report"]);
    await page.close();
    page = await open({ group: "kitchen", quickOptionsCount: 20 });
    expect(await optionLabels(page, "Who brings dessert?")).toEqual(["React", "Reply", "Reply in thread", "Copy", "Message privately", "Report"]);
    await page.close();

    const hides: [prop: string, label: string, text: string, group?: boolean][] = [
      ["hideReactionOption", "React", "Around seven"],
      ["hideReplyOption", "Reply", "Around seven"],
      ["hideReplyInThreadOption", "Reply in thread", "Around seven"],
      ["hideCopyMessageOption", "Copy", "Around seven"],
      ["hideEditMessageOption", "Edit", "Around seven"],
      ["hideMessageInfoOption", "Message info", "Around seven"],
      ["hideDeleteMessageOption", "Delete", "Around seven"],
      ["hideFlagMessageOption", "Report", "what time is dinner"],
      ["hideMessagePrivatelyOption", "Message privately", "Who brings dessert?", true],
    ];
    for (const [prop, label, text, group] of hides) {
      page = await open({ ...(group ? { group: "kitchen" } : { user: "bob" }), quickOptionsCount: 20, [prop]: true });
      const labels = await optionLabels(page, text);
      expect(labels, prop).not.toContain(label);
      expect(labels.length, prop).toBeGreaterThan(0);
      await page.close();
    }
    page = await open({ user: "bob", quickOptionsCount: 20 });
    expect(await optionLabels(page, "what time is dinner")).not.toContain("Mark as unread"); // off unless shown
    expect(await optionLabels(page, "what time is dinner")).not.toContain("Translate"); // no assistant: AI is off
    await expectNoErrors(page);
  });

  test("quickOptionsCount before the overflow menu; the menu by keyboard; axe with it open", async () => {
    const page = await open({ user: "bob" });
    const g = await optionsOf(page, "Around seven");
    expect(await g.locator(":scope > button").evaluateAll((bs) => bs.map((x) => x.getAttribute("aria-label")))).toEqual(["React", "Reply", "Reply in thread"]);
    const more = g.getByRole("button", { name: "More options" });
    expect(await more.getAttribute("aria-haspopup")).toBe("menu");
    await more.focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu", { name: "Message options" });
    await menu.waitFor();
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual(["Copy", "Edit", "Message info", "Delete"]);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Copy");
    await page.keyboard.press("ArrowDown");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Edit");
    await page.keyboard.press("End");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Delete");
    await expectAccessible(page);
    await screenshot(page, "features/options-menu");
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("More options");

    const one = await open({ user: "bob", quickOptionsCount: 1 });
    const g1 = await optionsOf(one, "Around seven");
    expect(await g1.locator(":scope > button").evaluateAll((bs) => bs.map((x) => x.getAttribute("aria-label")))).toEqual(["React"]);
    await expectNoErrors(page);
  });
});

describe("ChatMessageList options: reply, react and edit", () => {
  test("reply, reply in thread, message privately and copy", async () => {
    const page = await b.newPage();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: b.server.url });
    await openCase(page, "features-list", { group: "kitchen", quickOptionsCount: 20 }, { token: tokens.alice });
    let g = await optionsOf(page, "Who brings dessert?");
    await g.getByRole("button", { name: "Reply", exact: true }).click();
    expect((await waitForEvent(page, "ccReplyToMessage")).args).toEqual([ids.groupBob]);
    g = await optionsOf(page, "Who brings dessert?");
    await g.getByRole("button", { name: "Reply in thread" }).click();
    expect((await waitForEvent(page, "onThreadRepliesClick")).args).toEqual([ids.groupBob]);
    g = await optionsOf(page, "Who brings dessert?");
    await g.getByRole("button", { name: "Message privately" }).click();
    expect((await waitForEvent(page, "ccOpenChat")).args).toEqual(["bob", null]);
    g = await optionsOf(page, "Who brings dessert?");
    await g.getByRole("button", { name: "Copy" }).click();
    await g.getByText("Copied").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("Who brings dessert?");
    await expectNoErrors(page);
  });

  test("react with the emoji picker; the reaction appears on the bubble", async () => {
    const page = await open({ user: "bob" });
    const g = await optionsOf(page, "what time is dinner");
    await g.getByRole("button", { name: "React" }).click();
    const picker = page.getByRole("menu", { name: "Add a reaction" });
    await picker.waitFor();
    await expectAccessible(page);
    await screenshot(page, "features/emoji-picker");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("Enter");
    const chip = article(page, "what time is dinner").getByRole("button", { name: /^❤️ 1 reaction, including yours/ });
    await chip.waitFor();
    expect(await chip.getAttribute("aria-pressed")).toBe("true");
    // A click on the user's own reaction (no onReactionClick) takes it back.
    await chip.click();
    await chip.waitFor({ state: "detached" });
    await expectNoErrors(page);
  });

  test("edit in place: Enter saves, the list shows the new text", async () => {
    const page = await open({ user: "bob" });
    const g = await optionsOf(page, "Around seven");
    await g.getByRole("button", { name: "More options" }).click();
    await page.getByRole("menuitem", { name: "Edit" }).click();
    const box = page.getByRole("textbox", { name: "Edit message" });
    await box.waitFor();
    expect(await box.inputValue()).toBe("Around seven");
    await screenshot(page, "features/inline-editor");
    await page.keyboard.type(" sharp");
    await page.keyboard.press("Enter");
    await box.waitFor({ state: "detached" });
    await article(page, "Around seven sharp").waitFor();
    expect((await waitForEvent(page, "ccMessageEdited")).args).toEqual([ids.answer, "Around seven sharp"]);
    const stored = await chat.call<{ text: string }>("GET", `/messages/${ids.answer}`, undefined, tokens.bob);
    expect(stored.text).toBe("Around seven sharp");
    await expectNoErrors(page);
  });
});

describe("ChatMessageList options: info, report and delete", () => {
  test("message info lists the receipts; report with reason and remark; mark as unread", async () => {
    const page = await open({ user: "bob", quickOptionsCount: 0, showMarkAsUnreadOption: true });
    let g = await optionsOf(page, "Bring wine");
    await g.getByRole("button", { name: "More options" }).click();
    await page.getByRole("menuitem", { name: "Message info" }).click();
    const info = page.getByRole("dialog", { name: "Message info" });
    const receipts = info.getByRole("list", { name: "Receipts" });
    await receipts.waitFor();
    expect(await receipts.textContent()).toMatch(/Bob.*Delivered Today \d\d:\d\d [AP]M.*Read Today \d\d:\d\d [AP]M/);
    await expectAccessible(page);
    await screenshot(page, "features/info-dialog");
    await page.keyboard.press("Escape");
    await info.waitFor({ state: "detached" });

    g = await optionsOf(page, "what time is dinner");
    await g.getByRole("button", { name: "More options" }).click();
    await page.getByRole("menuitem", { name: "Report" }).click();
    const report = page.getByRole("dialog", { name: "Report message" });
    await report.getByLabel("Reason").selectOption("spam");
    await report.getByLabel("Remark (optional)").fill("Not dinner related");
    await expectAccessible(page);
    await screenshot(page, "features/report-dialog");
    await report.getByRole("button", { name: "Report" }).click();
    await report.waitFor({ state: "detached" });
    const flags = await chat.call<{ items: { messageId: number; uid: string; reason: string; remark?: string }[] }>("GET", "/moderation/flags");
    expect(flags.items).toEqual([expect.objectContaining({ messageId: ids.question, uid: "alice", reason: "spam", remark: "Not dinner related" })]);

    g = await optionsOf(page, "what time is dinner");
    await g.getByRole("button", { name: "More options" }).click();
    const unread = page.waitForResponse((r) => r.url().endsWith(`/chat/v1/messages/${ids.question}/unread`) && r.request().method() === "POST");
    await page.getByRole("menuitem", { name: "Mark as unread" }).click();
    expect((await unread).status()).toBe(204);
    await g.getByText("Marked as unread").waitFor();
    await expectNoErrors(page);
  });

  test("report without the remark field (hideFlagRemarkField)", async () => {
    const page = await open({ group: "kitchen", quickOptionsCount: 0, hideFlagRemarkField: true });
    const g = await optionsOf(page, "Who brings dessert?");
    await g.getByRole("button", { name: "More options" }).click();
    await page.getByRole("menuitem", { name: "Report" }).click();
    const report = page.getByRole("dialog", { name: "Report message" });
    await report.waitFor();
    expect(await report.getByLabel("Remark (optional)").count()).toBe(0);
    await report.getByLabel("Reason").selectOption("harassment");
    await report.getByRole("button", { name: "Report" }).click();
    await report.waitFor({ state: "detached" });
    await waitUntil(async () => {
      const flags = await chat.call<{ items: { messageId: number; reason: string; remark?: string }[] }>("GET", "/moderation/flags");
      return flags.items.find((f) => f.messageId === ids.groupBob && f.reason === "harassment" && !f.remark);
    });
    await expectNoErrors(page);
  });

  test("delete asks first, then the bubble becomes a tombstone", async () => {
    const page = await open({ user: "bob", quickOptionsCount: 0 });
    const g = await optionsOf(page, "Bring wine");
    const more = g.getByRole("button", { name: "More options" });
    await more.click();
    await page.getByRole("menuitem", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete message" });
    await dialog.waitFor();
    expect(await dialog.getAttribute("aria-modal")).toBe("true");
    // Focus stays inside: Cancel → Delete → Close → Cancel.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
    for (let i = 0; i < 3; i++) await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
    await expectAccessible(page);
    await screenshot(page, "features/delete-dialog");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByText("You deleted this message").waitFor();
    expect((await waitForEvent(page, "ccMessageDeleted")).args).toEqual([ids.toDelete, true]);
    await expectNoErrors(page);
  });
});
