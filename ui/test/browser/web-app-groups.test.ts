// The web app's groups on a real `agentry dev` (issue 23): creating public, private and password
// groups; the details panel with members and roles; an admin adds a person and an agent, changes
// a role, removes and bans; @-mentions with suggestions, highlighted, an agent outside the group
// flagged and answering once added. Screenshots in artifacts/web/.
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { pageErrors, screenshot } from "./harness";
import { composer, main, send, useWebApp } from "./webapp";

const app = useWebApp();
const { signIn, expectAccessible } = app;
const details = (p: Page) => p.getByRole("complementary", { name: "Group details" });
type Group = { guid: string; type: string; hasJoined?: boolean; membersCount?: number };

describe("web app groups on agentry dev", () => {
  test("create a public, a private and a password group; others find and join them as their type allows", async () => {
    const alice = await signIn("Alice");
    const stamp = Date.now() % 100000;
    const create = async (name: string, type: "Public" | "Private" | "Password", members: string[] = [], password = "") => {
      await alice.getByRole("button", { name: "New group" }).click();
      const dialog = alice.getByRole("dialog", { name: "New group" });
      await dialog.getByLabel("Name").fill(name);
      await dialog.getByRole("radio", { name: new RegExp(`^${type}`) }).check();
      if (password) await dialog.locator("input[type=password]").fill(password);
      for (const m of members) await dialog.getByRole("checkbox", { name: new RegExp(`^${m}`) }).check();
      return dialog;
    };
    // Checks first: a password group without a password is refused at the field.
    let dialog = await create(`Secret ${stamp}`, "Password");
    await dialog.getByRole("button", { name: "Create group" }).click();
    await dialog.getByText("A password group needs a password").waitFor();
    await screenshot(alice, "web/group-new");
    await expectAccessible(alice, "new group dialog");
    await dialog.locator("input[type=password]").fill("open sesame");
    await dialog.getByRole("button", { name: "Create group" }).click();
    await main(alice).getByRole("heading", { name: `Secret ${stamp}` }).waitFor();
    expect(new URL(alice.url()).pathname).toBe(`/group/secret-${stamp}`);

    dialog = await create(`Book club ${stamp}`, "Public", ["Bob"]);
    await dialog.getByRole("button", { name: "Create group" }).click();
    await main(alice).getByRole("heading", { name: `Book club ${stamp}` }).waitFor();
    dialog = await create(`Plans ${stamp}`, "Private", ["Carol"]);
    await dialog.getByRole("button", { name: "Create group" }).click();
    await main(alice).getByRole("heading", { name: `Plans ${stamp}` }).waitFor();
    // The new groups are in Alice's list without a reload.
    for (const n of [`Secret ${stamp}`, `Book club ${stamp}`, `Plans ${stamp}`]) await alice.locator(".chat-groups").getByText(n).waitFor();

    const token = await app.dev().mintToken("carol");
    const all = await app.dev().call<{ items: Group[] }>("GET", "/groups?limit=100", undefined, token);
    const byGuid = new Map(all.items.map((g) => [g.guid, g]));
    expect(byGuid.get(`book-club-${stamp}`)).toMatchObject({ type: "public" });
    expect(byGuid.get(`secret-${stamp}`)).toMatchObject({ type: "password" });
    expect(byGuid.get(`plans-${stamp}`)).toMatchObject({ type: "private", hasJoined: true });
    // Bob is in Book club; Dave (a new user) sees the private group not at all.
    const bob = await app.dev().call<{ items: Group[] }>("GET", "/groups?limit=100", undefined, await app.dev().mintToken("bob"));
    expect(bob.items.find((g) => g.guid === `book-club-${stamp}`)?.hasJoined).toBe(true);
    expect(bob.items.some((g) => g.guid === `plans-${stamp}`)).toBe(false);
    expect(pageErrors(alice)).toEqual([]);
  });
});

describe("web app groups on agentry dev: details", () => {
  test("group details: members and roles; the admin adds a person and an agent, promotes, removes and bans; the member sees it live", async () => {
    const stamp = Date.now() % 100000;
    const guid = `crew-${stamp}`;
    await app.dev().call("POST", "/groups", { guid, name: `Crew ${stamp}`, type: "public", members: [{ uid: "bob" }] }, await app.dev().mintToken("alice"));
    const [alice, bob] = await Promise.all([signIn("Alice", `/group/${guid}`), signIn("Bob", `/group/${guid}`)]);
    await main(alice).getByRole("heading", { name: `Crew ${stamp}` }).waitFor();
    await main(alice).getByRole("button", { name: "Group details" }).click();
    const panel = details(alice);
    const members = panel.getByRole("list", { name: "Members" });
    await members.getByText("Bob").waitFor();
    await members.getByRole("listitem").filter({ hasText: "Alice" }).getByText("Owner").waitFor();

    // Add Carol and the chef agent.
    await panel.getByLabel("Add a member or an agent").selectOption("carol");
    await panel.getByRole("button", { name: "Add", exact: true }).click();
    await members.getByText("Carol").waitFor();
    await panel.getByLabel("Add a member or an agent").selectOption("chef");
    await panel.getByRole("button", { name: "Add", exact: true }).click();
    await members.getByRole("listitem").filter({ hasText: "Chef" }).getByText("agent", { exact: false }).waitFor();
    // Bob's open details follow.
    await main(bob).getByRole("button", { name: "Group details" }).click();
    await details(bob).getByRole("list", { name: "Members" }).getByText("Carol").waitFor();
    // A participant sees roles, not actions.
    expect(await details(bob).getByRole("button", { name: /^Remove / }).count()).toBe(0);

    await panel.getByLabel("Role of Bob").selectOption("moderator");
    await expect.poll(async () => (await app.dev().call<{ items: { uid: string; scope: string }[] }>("GET", `/groups/${guid}/members`, undefined, await app.dev().mintToken("alice"))).items.find((m) => m.uid === "bob")?.scope).toBe("moderator");
    await screenshot(alice, "web/group-details");
    await expectAccessible(alice, "group details (admin)");

    await panel.getByRole("button", { name: "Remove Carol" }).click();
    await members.getByText("Carol").waitFor({ state: "detached" });
    await panel.getByRole("button", { name: "Ban Bob" }).click();
    await members.getByText("Bob").waitFor({ state: "detached" });
    await panel.getByRole("list", { name: "Banned" }).getByText("Bob").waitFor();
    await panel.getByRole("button", { name: "Unban Bob" }).click();
    await panel.getByRole("list", { name: "Banned" }).waitFor({ state: "detached" });
    expect(pageErrors(alice)).toEqual([]);
  });
});

describe("web app groups on agentry dev: mentions", () => {
  test("@-mentions: suggestions by keyboard, highlighted in the message; an agent outside the group is flagged, and answers once added", async () => {
    const stamp = Date.now() % 100000;
    const guid = `kitchen-${stamp}`;
    await app.dev().call("POST", "/groups", { guid, name: `Kitchen ${stamp}`, type: "public", members: [{ uid: "bob" }] }, await app.dev().mintToken("alice"));
    const [alice, bob] = await Promise.all([signIn("Alice", `/group/${guid}`), signIn("Bob", `/group/${guid}`)]);
    await main(alice).getByRole("heading", { name: `Kitchen ${stamp}` }).waitFor();
    await composer(alice).pressSequentially("Ask @b");
    const list = main(alice).getByRole("listbox", { name: "People and agents to mention" });
    await list.getByRole("option", { name: /^Bob/ }).waitFor();
    expect(await composer(alice).getAttribute("aria-activedescendant")).toBeTruthy();
    await screenshot(alice, "web/mention-suggestions");
    await expectAccessible(alice, "mention suggestions");
    await composer(alice).press("Enter");
    expect(await composer(alice).inputValue()).toBe("Ask @bob ");
    await composer(alice).pressSequentially("about dinner");
    await composer(alice).press("Enter");
    const msg = main(bob).getByRole("article").filter({ hasText: "about dinner" });
    await msg.locator(".chat-text-bubble__mention", { hasText: "@bob" }).waitFor();

    // The chef is not a member: the mention is flagged, and the service does not run it.
    await composer(alice).pressSequentially("@ch");
    await list.getByRole("option", { name: /Chef.*not in this group/ }).waitFor();
    await composer(alice).press("Tab");
    await main(alice).getByRole("status").filter({ hasText: "Chef is not in this group, so it will not answer" }).waitFor();
    await composer(alice).pressSequentially("what can I use instead of butter?");
    await composer(alice).press("Enter");
    await main(alice).getByRole("article").filter({ hasText: "instead of butter" }).waitFor();
    await alice.waitForTimeout(1500);
    expect(await main(alice).locator(".chat-message-bubble--agentic").count()).toBe(0);

    // Added, it answers the same mention.
    await app.dev().call("POST", `/groups/${guid}/members`, { members: [{ uid: "chef" }] }, await app.dev().mintToken("alice"));
    await composer(alice).fill("");
    await composer(alice).pressSequentially("@chef what can I use instead of butter?");
    await expect.poll(() => main(alice).getByRole("status").filter({ hasText: "not in this group" }).count()).toBe(0);
    await composer(alice).press("Escape");
    await composer(alice).press("Enter");
    await main(bob).locator(".chat-message-bubble--agentic").first().waitFor({ timeout: 30_000 });
    expect(pageErrors(alice)).toEqual([]);
  });
});
