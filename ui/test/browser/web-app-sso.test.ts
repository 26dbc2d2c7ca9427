// Sign-in through an identity provider: a real `agentry chat` configured for OpenID Connect and
// a real provider (test/idp: the OpenID Certified oidc-provider package), driven by Chromium
// from the web app's sign-in page through the provider's own login form and back.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freeAddress, startChat, startIdp, type ChatProcess } from "../agentry.mjs";
import { expectAccessible, launchBrowser, newPage, screenshot } from "./harness";

const users = [
  { sub: "ann", password: "ann-pw", email: "ann@example.com", email_verified: true, name: "Ann Lee", groups: ["eng", "chat-admins"] },
  { sub: "sam", password: "sam-pw", email: "sam@example.com", email_verified: true, name: "Sam Ortiz", groups: ["sales"] },
];

describe("web app: sign in with an identity provider", () => {
  let idp: Awaited<ReturnType<typeof startIdp>>;
  let chat: ChatProcess;
  let browser: Browser;
  beforeAll(async () => {
    const addr = await freeAddress();
    const callback = `http://${addr}/chat/v1/auth/sso/callback`;
    const secret = "web-sso-client-secret-0123456789";
    [idp, browser] = await Promise.all([
      startIdp({ users, clients: [{ client_id: "agentry-web", client_secret: secret, redirect_uris: [callback], post_logout_redirect_uris: [`http://${addr}/`] }] }),
      launchBrowser(),
    ]);
    chat = await startChat({
      addr,
      env: {
        AGENTRY_CHAT_OIDC_ISSUER: idp.issuer, AGENTRY_CHAT_OIDC_CLIENT_ID: "agentry-web", AGENTRY_CHAT_OIDC_CLIENT_SECRET: secret,
        AGENTRY_CHAT_OIDC_REDIRECT_URL: callback, AGENTRY_CHAT_OIDC_PROVIDER_NAME: "Test IdP", AGENTRY_CHAT_OIDC_SCOPES: "email,profile,groups",
        AGENTRY_CHAT_OIDC_GROUPS_CLAIM: "groups", AGENTRY_CHAT_OIDC_ADMIN_GROUPS: "chat-admins", AGENTRY_CHAT_OIDC_REQUIRED_GROUPS: "eng",
      },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await chat?.stop();
    await idp?.stop();
  });

  async function signIn(user: string, password: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
    const page = await newPage(browser, chat.base, { viewport });
    await page.goto("/");
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    await page.getByLabel("Username").fill(user);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    return page;
  }

  test("the sign-in page offers the provider and no user picker", async () => {
    for (const width of [1280, 390]) {
      const page = await newPage(browser, chat.base, { viewport: { width, height: 800 } });
      await page.goto("/");
      await page.getByRole("link", { name: "Sign in with Test IdP" }).waitFor();
      expect(await page.getByRole("list", { name: "Sample users" }).count()).toBe(0);
      expect(await page.getByLabel("Auth token").count()).toBe(0);
      await screenshot(page, `web/sso-sign-in-${width}`);
      await expectAccessible(page, `the SSO sign-in page at ${width} px`);
      await page.context().close();
    }
  });

  test("a member signs in through the provider's form, lands in the chat as that user, and signs out", async () => {
    const page = await signIn("ann", "ann-pw");
    await page.getByText("Signed in as").waitFor();
    await expect.poll(() => page.getByRole("banner").textContent()).toContain("Ann Lee");
    // An admin by the provider's group: the Agents page is there.
    await page.getByRole("link", { name: "Agents" }).waitFor();
    // Nothing of the session in the address bar or the page's storage but the SDK's token.
    expect(page.url()).toBe(`${chat.base}/`);
    await screenshot(page, "web/sso-signed-in-1280");
    // Log out ends the chat session and, at the provider's confirmation, the provider's.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("button", { name: "Yes, sign me out" }).click();
    await page.getByRole("link", { name: "Sign in with Test IdP" }).waitFor();
    expect(page.url()).toBe(`${chat.base}/`);
    // A reload stays signed out: the session ended, the hand-off cookie was used once.
    await page.reload();
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    // The provider asks for the password again: its session ended too.
    await page.getByLabel("Password").waitFor();
    await page.context().close();
  });

  test("a deactivated user's socket closes: the sign-in page says why and keeps the draft; reactivated, they are back where they were", async () => {
    await chat.createUser("bob", "Bob");
    const page = await signIn("ann", "ann-pw");
    await page.getByText("Signed in as").waitFor();
    await page.goto("/user/bob");
    const composer = page.getByRole("main").getByRole("textbox", { name: "Message Bob" });
    await composer.fill("half a thought about Friday");
    const me = await page.evaluate(async () => {
      const token = (JSON.parse(localStorage.getItem("agentry.web.session") ?? "{}") as { token?: string }).token;
      const r = await fetch("/chat/v1/me", { headers: { authorization: `Bearer ${token}` } });
      return ((await r.json()) as { uid: string }).uid;
    });
    await chat.call("POST", `/users/${me}/deactivate`);
    await page.getByRole("status").getByText("Your session has ended").waitFor();
    await page.getByRole("link", { name: "Sign in with Test IdP" }).waitFor();
    await screenshot(page, "web/sso-session-ended-1280");
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "web/sso-session-ended-390");
    await page.setViewportSize({ width: 1280, height: 800 });
    // While deactivated, the provider's sign-in is refused with a sentence.
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    const password = page.getByLabel("Password");
    const refused = page.getByRole("alert").getByText("deactivated");
    await password.or(refused).first().waitFor();
    if (await password.isVisible()) {
      await page.getByLabel("Username").fill("ann");
      await password.fill("ann-pw");
      await page.getByRole("button", { name: "Sign in" }).click();
    }
    await refused.waitFor();
    await chat.call("POST", `/users/${me}/reactivate`);
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    // The provider's session may still be there (no form); either way back in the chat, in the
    // conversation, with the draft.
    await password.or(composer).first().waitFor();
    if (await password.isVisible()) {
      await page.getByLabel("Username").fill("ann");
      await password.fill("ann-pw");
      await page.getByRole("button", { name: "Sign in" }).click();
    }
    await expect.poll(() => composer.inputValue()).toBe("half a thought about Friday");
    expect(new URL(page.url()).pathname).toBe("/user/bob");
    await page.context().close();
  });

  test("People (admins): search, deactivate someone whose open page then returns to sign-in, reactivate", async () => {
    await chat.createUser("dora", "Dora Diaz");
    // Dora is signed in elsewhere with a token the REST API key minted.
    const dora = await newPage(browser, chat.base, { viewport: { width: 390, height: 800 } });
    const token = await chat.mintToken("dora");
    await dora.addInitScript((t) => localStorage.setItem("agentry.web.session", JSON.stringify({ token: t })), token);
    await dora.goto("/");
    await dora.getByRole("button", { name: "Log out" }).waitFor();

    const admin = await signIn("ann", "ann-pw");
    await admin.getByRole("link", { name: "People" }).click();
    const people = admin.getByRole("main", { name: "People" });
    await people.getByRole("searchbox", { name: "Search people" }).fill("dora");
    const row = people.getByRole("listitem", { name: "Dora Diaz" });
    await row.waitFor();
    await expect.poll(() => people.getByRole("listitem").count()).toBe(1);
    await row.getByRole("button", { name: "Deactivate…" }).click();
    await screenshot(admin, "web/people-confirm-1280");
    await expectAccessible(admin, "the People page asking to confirm");
    await row.getByRole("group", { name: "Deactivate Dora Diaz?" }).getByRole("button", { name: "Deactivate" }).click();
    await row.getByText("deactivated").waitFor();
    await dora.getByRole("status").getByText("Your session has ended").waitFor();
    await row.getByRole("button", { name: "Reactivate" }).click();
    await row.getByRole("button", { name: "Deactivate…" }).waitFor();
    expect(await row.getByText("deactivated").count()).toBe(0);
    // The admin's own row has no action.
    await people.getByRole("searchbox", { name: "Search people" }).fill("ann");
    const self = people.getByRole("listitem", { name: "Ann Lee" });
    await self.waitFor();
    expect(await self.getByRole("button").count()).toBe(0);
    await admin.setViewportSize({ width: 390, height: 800 });
    await people.getByRole("searchbox", { name: "Search people" }).fill("");
    await people.getByRole("listitem", { name: "Dora Diaz" }).waitFor();
    await screenshot(admin, "web/people-390");
    // The agent form's audience field, at both widths.
    await admin.getByRole("link", { name: "Agents" }).click();
    await admin.getByRole("button", { name: "New agent" }).click();
    await admin.getByLabel("Who may use it").fill("group:kitchen, idp:chefs");
    await admin.getByLabel("Who may use it").scrollIntoViewIfNeeded();
    await screenshot(admin, "web/agent-audience-390");
    await admin.setViewportSize({ width: 1280, height: 800 });
    await admin.getByLabel("Who may use it").scrollIntoViewIfNeeded();
    await screenshot(admin, "web/agent-audience-1280");
    await admin.context().close();
    await dora.context().close();
  });

  test("someone outside the required group comes back to a sentence that says why, signed out", async () => {
    const page = await signIn("sam", "sam-pw", { width: 390, height: 800 });
    const alert = page.getByRole("alert");
    await alert.getByText("not in a group allowed to use this chat").waitFor();
    expect(new URL(page.url()).search).toBe("");
    await page.getByRole("link", { name: "Sign in with Test IdP" }).waitFor();
    await screenshot(page, "web/sso-refused-390");
    await expectAccessible(page, "a refused sign-in");
    await page.context().close();
  });
});
