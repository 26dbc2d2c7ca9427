// The specification's group membership state table, live in chromium: alice watches her
// ChatGroups while an admin (and alice's other session, for her own joins and leaves) changes
// memberships through the chat service's REST API; plus the UI events ccGroupCreated /
// ccGroupDeleted and the SDK's group deletion.
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { expectAccessible, openCase, pageErrors, screenshot, useChat } from "./harness";

/** expect.poll waits 1 s by default: a loaded machine may need longer. */
const SOON = { timeout: 10_000 };

declare global {
  interface Window {
    /** Each row's state now and when it first appeared, by guid (open). */
    __rows?: { first: Record<string, string>; now(guid: string): string };
  }
}

const { chat, b } = useChat();
let alice = "";
let admin = "";
let bob = "";
const asAdmin = <T = unknown>(method: string, path: string, body?: unknown) => chat.call<T>(method, path, body, admin);
const asAlice = <T = unknown>(method: string, path: string, body?: unknown) => chat.call<T>(method, path, body, alice);

beforeAll(async () => {
  for (const uid of ["alice", "admin", "bob", "carol"]) await chat.createUser(uid, uid[0]!.toUpperCase() + uid.slice(1));
  [alice, admin, bob] = await Promise.all([chat.mintToken("alice"), chat.mintToken("admin"), chat.mintToken("bob")]);
});

let n = 0;
/** A fresh public group (or of type) owned by admin, with these members besides admin. */
const group = async (name: string, members: string[] = [], type = "public") => {
  const guid = `t${++n}-${name.toLowerCase().replace(/\W+/g, "-")}`;
  await asAdmin("POST", "/groups", { guid, name, type, members: members.map((uid) => ({ uid })) });
  return guid;
};

const row = (page: Page, guid: string) => page.locator(`.chat-groups__list-item[data-guid="${guid}"]`);
/** "<hasJoined> <scope> · <subtitle>" of the group's row, or "absent" (read in one go: a row
 * removed meanwhile must not leave a locator waiting for it). */
const state = (page: Page, guid: string) => page.evaluate((g) => window.__rows!.now(g), guid);
/** The row's state when it first appeared ("absent" if it never did): a row shown too early shows the wrong one. */
const firstSeen = (page: Page, guid: string) => page.evaluate((g) => window.__rows!.first[g] ?? "absent", guid);
const open = async (page: Page) => {
  await openCase(page, "groups", { flags: true }, { token: alice });
  await expect.poll(() => page.getByRole("option").count(), SOON).toBeGreaterThan(0);
  await page.evaluate(() => {
    const of = (li: Element) => {
      const flags = li.querySelector(".case-flags");
      return `${flags?.getAttribute("data-joined")} ${flags?.getAttribute("data-scope") || "-"} · ${li.querySelector(".chat-groups__subtitle")?.textContent}`;
    };
    const rows = () => [...document.querySelectorAll(".chat-groups__list-item")];
    const first: Record<string, string> = {};
    const look = () => rows().forEach((li) => (first[li.getAttribute("data-guid")!] ??= of(li)));
    window.__rows = { first, now: (g) => { const li = rows().find((e) => e.getAttribute("data-guid") === g); return li ? of(li) : "absent"; } };
    look();
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
};
const rowIndex = (page: Page, guid: string) =>
  page.locator(".chat-groups__list-item").evaluateAll((els, g) => els.findIndex((e) => e.getAttribute("data-guid") === g), guid);

describe("ChatGroups live membership (browser)", () => {
  test("every transition of the state table, driven through the REST API", async () => {
    const joinMe = await group("Join me");
    const leaveMe = await group("Leave me", ["alice"]);
    const kickMe = await group("Kick me", ["alice"]);
    const banMe = await group("Ban me", ["alice"]);
    const promoteMe = await group("Promote me", ["alice"]);
    const busy = await group("Busy", ["alice"]);

    const page = await b.newPage();
    await open(page);
    expect(await state(page, joinMe)).toBe("false - · 1 member");
    expect(await state(page, leaveMe)).toBe("true participant · 2 members");

    // not joined → joined (alice herself, from her other session)
    await asAlice("POST", `/groups/${joinMe}/join`);
    await expect.poll(() => state(page, joinMe), SOON).toBe("true participant · 2 members");

    // joined → left
    await asAlice("POST", `/groups/${leaveMe}/leave`);
    await expect.poll(() => state(page, leaveMe), SOON).toBe("false - · 1 member");

    // joined → kicked
    await asAdmin("DELETE", `/groups/${kickMe}/members/alice`);
    await expect.poll(() => state(page, kickMe), SOON).toBe("false - · 1 member");

    // listed → banned: removed from the list (the keyboard focus on it moves to a neighbour)
    await row(page, banMe).locator("[role=option]").focus();
    await asAdmin("POST", `/groups/${banMe}/bans/alice`);
    await expect.poll(() => state(page, banMe), SOON).toBe("absent");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("role")), SOON).toBe("option");

    // any → scope changed
    await asAdmin("PUT", `/groups/${promoteMe}/members/alice`, { scope: "moderator" });
    await expect.poll(() => state(page, promoteMe), SOON).toBe("true moderator · 2 members");

    // not in list → added (a private group alice could not see): appears at the top
    const secret = await group("Secret", [], "private");
    expect(await state(page, secret)).toBe("absent");
    await asAdmin("POST", `/groups/${secret}/members`, { members: [{ uid: "alice" }] });
    await expect.poll(() => state(page, secret), SOON).toBe("true participant · 2 members");
    expect(await firstSeen(page, secret)).toBe("true participant · 2 members"); // not shown before she was added
    expect(await rowIndex(page, secret)).toBe(0);
    expect(await row(page, secret).locator(".chat-list-item__status-icon").getAttribute("aria-label")).toBe("Private group");

    // others: only the member count (alice's flags stay as they are)
    await chat.call("POST", `/groups/${joinMe}/join`, undefined, bob);
    await expect.poll(() => state(page, joinMe), SOON).toBe("true participant · 3 members");
    await asAdmin("POST", `/groups/${busy}/members`, { members: [{ uid: "bob" }, { uid: "carol" }] });
    await expect.poll(() => state(page, busy), SOON).toBe("true participant · 4 members");
    await asAdmin("DELETE", `/groups/${busy}/members/carol`);
    await expect.poll(() => state(page, busy), SOON).toBe("true participant · 3 members");
    await asAdmin("POST", `/groups/${busy}/bans/bob`);
    await expect.poll(() => state(page, busy), SOON).toBe("true participant · 2 members");
    // (a group alice is not in tells her nothing: its count stays as loaded)
    expect(await state(page, kickMe)).toBe("false - · 1 member");

    await expectAccessible(page);
    await page.mouse.move(900, 700);
    await screenshot(page, "groups/live-membership");
    expect(pageErrors(page)).toEqual([]);
  });
});

describe("ChatGroups live membership (browser): UI events and deletion", () => {
  test("ccGroupCreated inserts at the top, ccGroupDeleted and the SDK's deletion remove", async () => {
    const keep = await group("Keep", ["alice"]);
    const doomed = await group("Doomed", ["alice"]);
    const page = await b.newPage();
    await open(page);
    const fresh = `zz-${++n}-created`;
    await asAdmin("POST", "/groups", { guid: fresh, name: "Freshly created", type: "public" });
    // A change alice is told about, made after it: a creation sent to her would have come first.
    await asAdmin("POST", `/groups/${doomed}/members`, { members: [{ uid: "bob" }] });
    await expect.poll(() => state(page, doomed), SOON).toBe("true participant · 3 members");
    expect(await state(page, fresh)).toBe("absent"); // alice is no member: the service told her nothing
    await page.evaluate((g) => window.__groups!.created(g), fresh);
    await expect.poll(() => rowIndex(page, fresh), SOON).toBe(0);
    expect(await state(page, fresh)).toBe("false - · 1 member");

    await page.evaluate((g) => window.__groups!.deleted(g), keep);
    await expect.poll(() => state(page, keep), SOON).toBe("absent");

    await asAdmin("DELETE", `/groups/${doomed}`);
    await expect.poll(() => state(page, doomed), SOON).toBe("absent");
    await screenshot(page, "groups/live-events");
  });
});
