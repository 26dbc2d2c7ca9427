// A chat without an identity provider: an admin invites people from the People page, the person
// opens the link, chooses a password and signs in with it from then on; admins change roles;
// an idle session ends and the web app returns to sign-in with the draft kept. A real `agentry
// chat` (no development Auth Key) and Chromium.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startChat, type ChatProcess } from "../agentry.mjs";
import { expectAccessible, launchBrowser, newPage, screenshot } from "./harness";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Signs in with an auth token the REST API key minted (the way in before any invitation). */
async function signInWithToken(chat: ChatProcess, uid: string, width = 1280): Promise<Page> {
  const page = await newPage(browser, chat.base, { viewport: { width, height: 800 } });
  await page.goto("/");
  await page.getByRole("button", { name: "Sign in with an auth token instead" }).click();
  await page.getByLabel("Auth token").fill(await chat.mintToken(uid));
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("button", { name: "Log out" }).waitFor();
  return page;
}

describe("web app: invitations and passwords", () => {
  let chat: ChatProcess;
  beforeAll(async () => {
    chat = await startChat({ authKey: "" });
    await chat.createUser("ada", "Ada Admin", { role: "admin" });
  });
  afterAll(async () => {
    await chat?.stop();
  });

  test("the sign-in page asks for a user id and password, no user picker", async () => {
    for (const width of [1280, 390]) {
      const page = await newPage(browser, chat.base, { viewport: { width, height: 800 } });
      await page.goto("/");
      await page.getByLabel("Password").waitFor();
      await page.getByLabel("User id").waitFor();
      expect(await page.getByRole("list", { name: "Sample users" }).count()).toBe(0);
      await screenshot(page, `web/password-sign-in-${width}`);
      await expectAccessible(page, `the password sign-in page at ${width} px`);
      await page.context().close();
    }
  });

  test("an admin invites someone; the link signs them up once; they sign in with their password", async () => {
    const admin = await signInWithToken(chat, "ada");
    await admin.getByRole("link", { name: "People" }).click();
    const people = admin.getByRole("main", { name: "People" });
    await people.getByRole("button", { name: "Invite someone" }).click();
    const form = people.getByRole("form", { name: "Invite someone" });
    await form.getByLabel("User id").fill("dave");
    await form.getByLabel("Name").fill("Dave Lee");
    await form.getByRole("button", { name: "Create sign-in link" }).click();
    const made = people.getByRole("region", { name: "Sign-in link for Dave Lee" });
    await made.waitFor();
    const link = await made.getByRole("textbox", { name: "Sign-in link" }).inputValue();
    expect(link).toMatch(new RegExp(`^${chat.base}/#invite=[A-Z2-7]{40,}$`));
    await screenshot(admin, "web/people-invite-1280");
    await expectAccessible(admin, "the People page with a new sign-in link");

    // Roles: Dave becomes an admin and stops being one.
    const row = people.getByRole("listitem", { name: "Dave Lee" });
    await row.getByRole("button", { name: "Make admin" }).click();
    await row.getByText("dave · admin").waitFor();
    await row.getByRole("button", { name: "Remove admin" }).click();
    await row.getByRole("button", { name: "Make admin" }).waitFor();
    expect(await row.getByText("· admin").count()).toBe(0);
    await admin.context().close();

    // Dave opens the link on his phone: greeted by name, the code leaves the address bar.
    const dave = await newPage(browser, chat.base, { viewport: { width: 390, height: 800 } });
    await dave.goto(link);
    await dave.getByRole("heading", { name: "Welcome, Dave Lee" }).waitFor();
    expect(dave.url()).toBe(`${chat.base}/`);
    await dave.getByLabel("New password").fill("a long password");
    await dave.getByLabel("Repeat it").fill("a long passwork");
    await dave.getByText("The two passwords differ.").waitFor();
    expect(await dave.getByRole("button", { name: "Set password and sign in" }).isDisabled()).toBe(true);
    await dave.getByLabel("Repeat it").fill("a long password");
    await screenshot(dave, "web/invitation-390");
    await expectAccessible(dave, "the invitation page");
    await dave.getByRole("button", { name: "Set password and sign in" }).click();
    await expect.poll(() => dave.getByRole("banner").textContent()).toContain("Dave Lee");
    await dave.getByRole("button", { name: "Log out" }).click();

    // From now on: user id and password. A wrong one says so and signs no one in.
    await dave.getByLabel("User id").fill("dave");
    await dave.getByLabel("Password").fill("not the password");
    await dave.getByRole("button", { name: "Sign in", exact: true }).click();
    await dave.getByRole("alert").getByText("wrong user id or password").waitFor();
    await dave.getByLabel("Password").fill("a long password");
    await dave.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => dave.getByRole("banner").textContent()).toContain("Dave Lee");
    await dave.context().close();

    // The link worked once.
    const again = await newPage(browser, chat.base);
    await again.goto(link);
    await again.getByRole("alert").getByText("used").waitFor();
    await again.getByRole("button", { name: "Go to the sign-in page" }).click();
    await again.getByLabel("Password").waitFor();
    await again.context().close();
  });

  test("at 390 px: a new sign-in link for someone who lost their password", async () => {
    await chat.createUser("erin", "Erin Okafor");
    const admin = await signInWithToken(chat, "ada", 390);
    await admin.getByRole("link", { name: "People" }).click();
    const people = admin.getByRole("main", { name: "People" });
    await people.getByRole("searchbox", { name: "Search people" }).fill("erin");
    const row = people.getByRole("listitem", { name: "Erin Okafor" });
    await row.getByRole("button", { name: "Sign-in link" }).click();
    await people.getByRole("region", { name: "Sign-in link for Erin Okafor" }).waitFor();
    await screenshot(admin, "web/people-invite-390");
    await expectAccessible(admin, "the People page at 390 px");
    await admin.context().close();
  });
});

describe("web app: an idle session ends", () => {
  let chat: ChatProcess;
  beforeAll(async () => {
    chat = await startChat({ authKey: "", args: ["--session-idle-timeout=10s"] });
    await Promise.all([chat.createUser("fay", "Fay"), chat.createUser("gus", "Gus")]);
  });
  afterAll(async () => {
    await chat?.stop();
  });

  test("left alone past the idle timeout, the page returns to sign-in with a sentence; the draft is kept", async () => {
    const page = await signInWithToken(chat, "fay");
    await page.goto("/user/gus");
    const composer = page.getByRole("main").getByRole("textbox", { name: "Message Gus" });
    await composer.fill("back after lunch");
    // Nobody touches the page: the session ends (the socket closes with 4001).
    await page.getByRole("status").getByText("Your session has ended").waitFor({ timeout: 60_000 });
    await page.getByRole("button", { name: "Sign in with an auth token instead" }).click();
    await page.getByLabel("Auth token").fill(await chat.mintToken("fay"));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => composer.inputValue(), { timeout: 10_000 }).toBe("back after lunch");
    expect(new URL(page.url()).pathname).toBe("/user/gus");
    await page.context().close();
  }, 120_000);
});
