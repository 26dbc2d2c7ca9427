// The web app (ui/apps/web) as `agentry dev` serves it at "/" (embedded in the binary: build it
// with `npm run build:web` before the binary). Two users chat live in the seeded group and one
// to one (the composer keeps what is typed during a send, and a failed send's text); a user
// asks the chef agent and gets the streamed answer and the recipe card; the admin disables an
// agent and a user's open page loses it without a reload (agents.changed); a new agent or action cannot take an existing one's id; the
// frontend-action form refuses a bad Parameters schema naming the field. Every page passes axe;
// screenshots in artifacts/web/.
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, test } from "vitest";
import { agentryBin, type DevProcess } from "../agentry.mjs";
import { newPage, pageErrors, screenshot } from "./harness";
import { composer, main as conversation, send, useWebApp } from "./webapp";

const app = useWebApp();
const { signIn, expectAccessible } = app;
let dev: DevProcess;
beforeAll(() => {
  dev = app.dev();
});
const open = (): Promise<Page> => newPage(app.browser(), dev.base);

describe("web app on agentry dev", () => {
  test("login page: the development users, accessible", async () => {
    const page = await open();
    const r = await page.goto("/");
    expect(r?.status(), `${agentryBin()} serves no web app at /: build it first (npm run build:web), then the binary (make build)`).toBe(200);
    await page.getByRole("button", { name: "Sign in as Alice" }).waitFor();
    for (const n of ["Bob", "Carol", "Admin"]) await expect.poll(() => page.getByRole("button", { name: `Sign in as ${n}` }).count()).toBe(1);
    await expect.poll(() => page.getByLabel("User id").count()).toBe(1);
    await screenshot(page, "web/login");
    await expectAccessible(page, "login");
    // A client-side route falls back to the app.
    expect((await page.goto("/admin"))?.status()).toBe(200);
    await page.getByRole("button", { name: "Sign in as Alice" }).waitFor();
  });

  test("development login with a new user id creates that user; an invalid id is refused with the reason", async () => {
    const page = await open();
    await page.goto("/");
    const uid = `dave-${Date.now() % 100000}`;
    await page.getByLabel("User id").fill(uid);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Signed in as").waitFor();
    expect(await page.locator("strong", { hasText: "Dave" }).first().textContent()).toBe(`Dave ${uid.slice(5)}`);
    await page.getByRole("button", { name: "Log out" }).click();
    // Signing in again with the same id is the same user, not a second one.
    await page.getByLabel("User id").fill(uid);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Signed in as").waitFor();
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByLabel("User id").fill("not a valid id!");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/uid/i);
    expect(await page.getByText("Signed in as").count()).toBe(0);
  });
});

describe("web app on agentry dev: token login", () => {
  test("without a development login: sign in with an auth token, log out", async () => {
    const page = await open();
    // The server's answer as a production server (no development Auth Key) gives it.
    await page.route("**/app-config.json", (route) => route.fulfill({ json: { chatPath: "/chat/v1", appId: "" } }));
    await page.goto("/");
    // The password form comes first (people invited by link); a pasted token is one click away.
    const tokenForm = () => page.getByRole("button", { name: "Sign in with an auth token instead" }).click();
    await page.getByLabel("Password").waitFor();
    await tokenForm();
    await page.getByLabel("Auth token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("alert").waitFor();
    await expectAccessible(page, "token login with an error");
    await screenshot(page, "web/login-token");
    const token = await dev.mintToken("alice");
    await page.getByLabel("Auth token").fill(token);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Signed in as").waitFor();
    // The session survives a reload, until "Log out".
    await page.reload();
    await page.getByText("Signed in as").waitFor();
    // The service failing while the session resumes (a restart, a 5xx) keeps the token: the
    // failure screen's "Try again" resumes it.
    const me = (u: URL) => u.pathname.endsWith("/chat/v1/me");
    await page.route(me, (route) => route.fulfill({ status: 503, json: { error: { code: "ERR_SERVICE_UNAVAILABLE", message: "the store is down; retry" } } }));
    await page.reload();
    await page.getByRole("button", { name: "Try again" }).waitFor();
    await page.getByText("the store is down; retry").waitFor();
    await expectAccessible(page, "boot failure");
    await page.unroute(me);
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByText("Signed in as").waitFor();
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByLabel("Password").waitFor();
    await page.reload();
    await tokenForm();
    // Log out ended the session, not the token an admin handed out: it signs in again.
    await page.getByLabel("Auth token").fill(token);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Signed in as").waitFor();
  });
});

describe("web app on agentry dev: chat", () => {
  test("two users chat live in the group general and one to one", async () => {
    const [alice, bob] = await Promise.all([signIn("Alice"), signIn("Bob")]);
    for (const p of [alice, bob]) await p.getByRole("option", { name: /General/ }).click();
    await conversation(alice).getByRole("heading", { name: "General" }).waitFor();
    await conversation(bob).getByRole("heading", { name: "General" }).waitFor();

    await send(alice, "Hello team, lunch at noon?");
    await conversation(bob).getByText("Hello team, lunch at noon?").waitFor();
    await send(bob, "Sounds good, Alice!");
    await conversation(alice).getByText("Sounds good, Alice!").waitFor();

    // A thread: Alice replies to Bob's message in its thread; Bob opens it from the reply count.
    const bobsMessage = conversation(alice).getByRole("article").filter({ hasText: "Sounds good, Alice!" });
    await bobsMessage.hover();
    await bobsMessage.getByRole("button", { name: "Reply in thread" }).click();
    const aliceThread = alice.getByRole("complementary", { name: "Thread" });
    await aliceThread.getByText("Sounds good, Alice!").first().waitFor();
    await aliceThread.getByRole("textbox", { name: "Reply in thread" }).fill("Noon works, table for four");
    await aliceThread.getByRole("textbox", { name: "Reply in thread" }).press("Enter");
    await aliceThread.getByRole("log").getByText("Noon works, table for four").waitFor();
    await screenshot(alice, "web/chat-thread");
    await expectAccessible(alice, "chat with a thread");
    await conversation(bob).getByRole("button", { name: "1 reply" }).click();
    await bob.getByRole("complementary", { name: "Thread" }).getByText("Noon works, table for four").waitFor();
    await alice.getByRole("button", { name: "Close thread" }).click();

    // One to one: Alice writes to Bob; Bob sees it unread, opens it and answers live.
    await alice.getByRole("list", { name: "People" }).getByRole("button", { name: /Bob/ }).click();
    await conversation(alice).getByRole("heading", { name: "Bob" }).waitFor();
    await send(alice, "Psst, a private question");
    await bob.getByRole("list", { name: "People" }).getByRole("button", { name: /Alice.*1 unread/ }).waitFor({ timeout: 15_000 });
    await bob.getByRole("list", { name: "People" }).getByRole("button", { name: /Alice/ }).click();
    await conversation(bob).getByText("Psst, a private question").waitFor();
    // Alice typing shows on Bob's side.
    await composer(alice).fill("Well");
    await conversation(bob).getByRole("status").filter({ hasText: /typing/i }).waitFor();
    await send(bob, "Ask away");
    await conversation(alice).getByText("Ask away").waitFor();

    await screenshot(alice, "web/chat-alice");
    await screenshot(bob, "web/chat-bob");
    await expectAccessible(alice, "chat");

    await heldSends(alice, bob);

    expect(pageErrors(alice)).toEqual([]);
    expect(pageErrors(bob)).toEqual([]);
  });
});

describe("web app on agentry dev: the chef agent", () => {
  test("a user asks the chef agent: welcome, streamed answer, recipe card", async () => {
    const carol = await signIn("Carol");
    await carol.getByRole("list", { name: "Agents" }).getByRole("button", { name: /Chef/ }).click();
    const main = conversation(carol);
    await main.getByText("Hi! What are we cooking today?").waitFor();
    await main.getByText("I suggest substitutes and turn what is in your pantry into a recipe.").waitFor();
    const suggestions = main.getByRole("group", { name: "Suggested messages" }).getByRole("button");
    await expect.poll(() => suggestions.allTextContents()).toEqual(["What can I use instead of butter?", "I have eggs, spinach and feta. What can I cook?"]);
    await screenshot(carol, "web/agent-welcome");
    await expectAccessible(carol, "agent chat (welcome)");

    // The run's AG-UI events stream to the page over its WebSocket as they happen.
    const frames: string[] = [];
    carol.on("websocket", (ws) => ws.on("framereceived", (f) => typeof f.payload === "string" && f.payload.includes('"type":"agent"') && frames.push(f.payload)));
    await carol.reload(); // the socket opens again, now observed
    await carol.getByRole("list", { name: "Agents" }).getByRole("button", { name: /Chef/ }).click();
    await main.getByText("Hi! What are we cooking today?").waitFor();
    await send(carol, "I have eggs, spinach and feta. What can I cook?");

    const card = main.getByRole("group", { name: "Recipe: Pantry Skillet" });
    await card.waitFor({ timeout: 30_000 });
    const steps = await card.getByRole("listitem").allTextContents();
    expect(steps.slice(0, 3)).toEqual(["Prepare the eggs.", "Prepare the spinach.", "Prepare the feta."]);
    // The action's result went back to the agent, which finished the run.
    await main.getByText("The recipe card is on your screen. Enjoy your meal!").waitFor({ timeout: 30_000 });
    const events = frames.map((f) => (JSON.parse(f) as { event: { type: string; toolCallName?: string; executionText?: string; delta?: string } }).event);
    expect(events.some((e) => e.type === "TEXT_MESSAGE_CONTENT" && e.delta)).toBe(true);
    expect(events.find((e) => e.type === "TOOL_CALL_START" && e.toolCallName === "show-recipe-card")?.executionText).toBe("Showing the recipe card");
    await screenshot(carol, "web/agent-recipe");
    await expectAccessible(carol, "agent chat (answer)");
    expect(pageErrors(carol)).toEqual([]);
  });
});

describe("web app on agentry dev: the admin page", () => {
  test("the admin disables the weather agent and users no longer see it", async () => {
    const alice = await signIn("Alice");
    const agents = alice.getByRole("list", { name: "Agents" });
    await agents.getByRole("button", { name: /Weather/i }).waitFor();

    const admin = await signIn("Admin");
    await admin.getByRole("link", { name: "Agents" }).click();
    await admin.getByRole("button", { name: /weather/i }).first().click();
    const main = admin.getByRole("main");
    await main.getByRole("heading", { name: /Agent Weather/i }).waitFor();
    // Every field of the platform form, labelled; headers are write-only.
    for (const label of ["Provider", "Agent ID", "Name", "Icon", "Greeting", "Introductory Message", "Suggested messages", "Deployment URL", "Headers"]) {
      await expect.poll(() => main.getByLabel(label, { exact: true }).count(), { message: label }).toBe(1);
    }
    expect(await main.getByLabel("Headers", { exact: true }).inputValue()).toBe("");
    await screenshot(admin, "web/admin-agent");
    await expectAccessible(admin, "admin");
    await disableFromThePanel(admin, alice);
    await switchFromTheList(admin, alice);
    await refuseTakenIds(admin);
    await testTheConnection(admin);
    await chatSignedAgent(admin);
  });

  test("the frontend-action form refuses a bad Parameters schema, naming the field", async () => {
    const admin = await signIn("Admin");
    await admin.getByRole("link", { name: "Agents" }).click();
    await admin.getByRole("navigation", { name: "Agents" }).getByRole("button", { name: /chef/i }).click();
    const main = admin.getByRole("main");
    await main.getByRole("button", { name: /Show recipe card/ }).waitFor();
    await main.getByRole("button", { name: "New action" }).click();
    const form = main.getByRole("form", { name: "New frontend action" });
    await form.getByLabel("Display Name").fill("Show city");
    await form.getByLabel("Name", { exact: true }).fill("show-city");
    await form.getByLabel("Description").fill("Shows a city on a map.");
    const params = form.getByLabel("Parameters", { exact: true });

    // The name of an existing action is refused (the PUT would replace it).
    await form.getByLabel("Name", { exact: true }).fill("show-recipe-card");
    await form.getByText(/^an action with this name exists/).waitFor();
    expect(await form.getByLabel("Name", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await form.getByLabel("Name", { exact: true }).fill("show-city");

    await params.fill('{"type": "object", "properties": {');
    await form.getByText(/^Parameters is not valid JSON/).waitFor();
    const bad = '{"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}';
    await params.fill(bad);
    // In the form's words: the label, then the path inside the schema.
    await form.getByText("Parameters: properties.city.description is required").waitFor();
    expect(await params.getAttribute("aria-invalid")).toBe("true");
    await form.getByRole("button", { name: "Save action" }).click();
    await form.getByText("Fix the fields marked above.").waitFor();
    await screenshot(admin, "web/admin-action-error", { fullPage: false });
    await expectAccessible(admin, "admin (action form with an error)");

    // The server refuses the same schema with the same words.
    const refused = await dev
      .call("PUT", "/agents/chef/actions/show-city", { displayName: "Show city", description: "Shows a city.", parameters: JSON.parse(bad) })
      .then(() => undefined, (e: { status?: number; body?: unknown }) => e);
    expect(refused?.status).toBe(400);
    expect(JSON.stringify(refused?.body)).toContain("parameters.properties.city.description is required");

    // Fixed, it saves.
    await params.fill('{"type": "object", "required": ["city"], "properties": {"city": {"type": "string", "description": "The city."}}}');
    await form.getByRole("button", { name: "Save action" }).click();
    await main.getByRole("button", { name: /Show city/ }).waitFor();
    const actions = await dev.call<{ items: { name: string }[] }>("GET", "/agents/chef/actions");
    expect(actions.items.map((a) => a.name)).toContain("show-city");
    expect(pageErrors(admin)).toEqual([]);
  });
});

/** The panel's switch disables Weather; Alice's open page loses it by the agents.changed frame. */
async function disableFromThePanel(admin: Page, alice: Page): Promise<void> {
  const main = admin.getByRole("main");
  // Alice's page (another browser context) is not reloaded: the service sends every socket
  // agents.changed and the page reloads its agent list. Focus events are counted and the
  // wait is well under the 20 s fallback refresh, so the frame is what removes Weather.
  await alice.evaluate(() => {
    const w = window as unknown as { __focus: number };
    w.__focus = 0;
    window.addEventListener("focus", () => void w.__focus++);
  });
  const enabled = main.getByRole("switch", { name: "Enabled" });
  expect(await enabled.isChecked()).toBe(true);
  const disabledAt = Date.now();
  await enabled.click();
  await main.getByText("Disabled: users no longer see this agent.").waitFor();
  const list = await dev.call<{ items: { agentId: string; enabled: boolean }[] }>("GET", "/agents");
  expect(list.items.find((a) => a.agentId === "weather")?.enabled).toBe(false);

  const aliceAgents = alice.getByRole("list", { name: "Agents" });
  await aliceAgents.getByRole("button", { name: /Weather/i }).waitFor({ state: "detached", timeout: 15_000 });
  expect(Date.now() - disabledAt).toBeLessThan(15_000);
  expect(await aliceAgents.getByRole("button", { name: /Chef/ }).count()).toBe(1);
  expect(await aliceAgents.getByRole("button", { name: /Weather/i }).count()).toBe(0);
  expect(app.socketFrames(alice)).toContain('{"type":"agents.changed","agentId":"weather"}');
  expect(await alice.evaluate(() => (window as unknown as { __focus: number }).__focus)).toBe(0);
}

/** The list's own switch per agent follows the panel's, and turning Weather back on there saves it. */
async function switchFromTheList(admin: Page, alice: Page): Promise<void> {
  const main = admin.getByRole("main");
  const enabled = main.getByRole("switch", { name: "Enabled" });
  const aliceAgents = alice.getByRole("list", { name: "Agents" });
  // The agent list has its own on/off switch per agent: it followed the panel's, and turning
  // Weather back on there saves it and moves the panel's switch too.
  const nav = admin.getByRole("navigation", { name: "Agents" });
  const listed = nav.getByRole("switch", { name: "Weather enabled" });
  await expect.poll(() => listed.isChecked()).toBe(false);
  await listed.click();
  await expect.poll(() => enabled.isChecked()).toBe(true);
  await expect
    .poll(async () => (await dev.call<{ items: { agentId: string; enabled: boolean }[] }>("GET", "/agents")).items.find((a) => a.agentId === "weather")?.enabled)
    .toBe(true);
  await aliceAgents.getByRole("button", { name: /Weather/i }).waitFor();
  await screenshot(admin, "web/admin-list-switch");
}

/** A new agent cannot take a person's uid (the server says so at the field) nor an agent's id (refused before any request). */
async function refuseTakenIds(admin: Page): Promise<void> {
  const main = admin.getByRole("main");
  // A new agent whose id is a person's uid: the server's error shows at the Agent ID field.
  await admin.getByRole("button", { name: "New agent" }).click();
  await main.getByRole("heading", { name: "New agent" }).waitFor();
  // The Deployment URL's example follows the provider: an A2A agent is named by its card.
  const url = main.getByLabel("Deployment URL", { exact: true });
  expect(await url.getAttribute("placeholder")).toMatch(/\/ag-ui$/);
  await main.getByLabel("Provider", { exact: true }).selectOption("a2a");
  await expect.poll(() => url.getAttribute("placeholder")).toMatch(/\/a2a\/chef\/\.well-known\/agent-card\.json$/);
  await screenshot(admin, "web/admin-agent-a2a");
  await main.getByLabel("Provider", { exact: true }).selectOption("ag-ui");
  await main.getByLabel("Agent ID", { exact: true }).fill("alice");
  await main.getByLabel("Name", { exact: true }).fill("Alice bot");
  await main.getByLabel("Deployment URL", { exact: true }).fill("http://127.0.0.1:9/api/agents/x/ag-ui");
  await main.getByRole("button", { name: "Save" }).click();
  await main.getByText('uid "alice" belongs to a user who is not an agent').first().waitFor();
  expect(await main.getByLabel("Agent ID", { exact: true }).getAttribute("aria-invalid")).toBe("true");

  // A new agent with an existing agent's id: refused at the Agent ID field before any request
  // (the PUT would replace the chef and disable it); what was typed stays.
  const agentId = main.getByLabel("Agent ID", { exact: true });
  await agentId.fill("chef");
  await main.getByText(/^an agent with this id exists/).waitFor();
  await main.getByRole("button", { name: "Save" }).click();
  await main.getByText("Fix the fields marked above.").waitFor();
  expect(await agentId.getAttribute("aria-invalid")).toBe("true");
  expect(await agentId.inputValue()).toBe("chef");
  expect(await main.getByLabel("Name", { exact: true }).inputValue()).toBe("Alice bot");
  const chef = (await dev.call<{ items: { agentId: string; name: string; enabled: boolean; deploymentUrl?: string }[] }>("GET", "/agents")).items.find(
    (a) => a.agentId === "chef",
  );
  expect(chef?.enabled).toBe(true);
  expect(chef?.name).not.toBe("Alice bot");
  expect(chef?.deploymentUrl).not.toBe("http://127.0.0.1:9/api/agents/x/ag-ui");
  await agentId.scrollIntoViewIfNeeded();
  await screenshot(admin, "web/admin-duplicate-id");
  await expectAccessible(admin, "admin (new agent with a taken id)");
}

/** A screenshot at a phone's width (390 px) with target in view; the page's size is restored. */
async function narrowScreenshot(page: Page, target: Locator, name: string): Promise<void> {
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 800 });
  await target.scrollIntoViewIfNeeded();
  await screenshot(page, name);
  if (size) await page.setViewportSize(size);
}

/** An agent that takes the chat's signed tokens: the form asks for the token's audience only then,
 * and the choice is saved. */
async function chatSignedAgent(admin: Page): Promise<void> {
  const main = admin.getByRole("main");
  await admin.getByRole("button", { name: "New agent" }).click();
  await main.getByRole("heading", { name: "New agent" }).waitFor();
  await main.getByLabel("Agent ID", { exact: true }).fill("signed-agent");
  await main.getByLabel("Name", { exact: true }).fill("Signed agent");
  await main.getByLabel("Deployment URL", { exact: true }).fill("http://127.0.0.1:9/api/agents/signed-agent/ag-ui");
  expect(await main.getByLabel("Token audience").count()).toBe(0);
  // A ServiceAccount token is for in-cluster Agents only: the form says so before saving.
  await main.getByLabel("Who is asking").selectOption("service-account");
  expect(await main.getByLabel("Token audience").getAttribute("placeholder")).toBe("agentry.dev/agents/namespace/name");
  await main.getByRole("button", { name: "Save" }).click();
  await expect.poll(() => main.getByRole("alert").filter({ hasText: "Who is asking: a ServiceAccount token is for in-cluster Agents only" }).count()).toBe(1);
  expect(await main.getByLabel("Who is asking").getAttribute("aria-invalid")).toBe("true");
  await main.getByLabel("Who is asking").scrollIntoViewIfNeeded();
  await screenshot(admin, "web/admin-service-account");
  await narrowScreenshot(admin, main.getByLabel("Who is asking"), "web/admin-service-account-390");
  await main.getByLabel("Who is asking").selectOption("chat-jwt");
  await main.getByLabel("Token audience").fill("https://agents.example.com/api/agents/signed-agent");
  await main.getByLabel("Token audience").scrollIntoViewIfNeeded();
  await screenshot(admin, "web/admin-chat-jwt");
  await narrowScreenshot(admin, main.getByLabel("Token audience"), "web/admin-chat-jwt-390");
  await expectAccessible(admin, "admin (an agent taking the chat's tokens)");
  await main.getByRole("button", { name: "Save" }).click();
  await expect
    .poll(async () => (await dev.call<{ items: { agentId: string; auth?: string; tokenAudience?: string }[] }>("GET", "/agents")).items.find((a) => a.agentId === "signed-agent"))
    .toMatchObject({ auth: "chat-jwt", tokenAudience: "https://agents.example.com/api/agents/signed-agent" });
  await dev.call("DELETE", "/agents/signed-agent");
}

async function testTheConnection(admin: Page): Promise<void> {
  const main = admin.getByRole("main");
  // Test connection on the chef (the dev server's own runtime).
  await admin.getByRole("navigation", { name: "Agents" }).getByRole("button", { name: /chef/i }).click();
  await main.getByRole("heading", { name: /Agent Chef/ }).waitFor();
  await main.getByRole("button", { name: "Test connection" }).click();
  const result = main.getByRole("status", { name: "Connection test result" });
  await result.getByText("Connection works").waitFor({ timeout: 15_000 });
  await result.scrollIntoViewIfNeeded();
  await screenshot(admin, "web/admin-test-connection");
  // Fill from the agent: agentry dev registered chef with its action already; nothing is missing.
  await main.getByRole("button", { name: "Fill from the agent" }).click();
  await main.getByText("Filled from the agent; no frontend action was missing.").waitFor();
  expect(await main.getByLabel("Greeting").inputValue()).toBe("Hi! What are we cooking today?");
  expect(pageErrors(admin)).toEqual([]);
}


/** Sending clears the field at once and what is typed meanwhile stays; a failed send brings its
 * text back (before what was typed meanwhile) and says why. Alice's sends are held. */
async function heldSends(alice: Page, bob: Page): Promise<void> {
    const hold = (fail: boolean) => {
      let release = () => {};
      const done = new Promise<void>((r) => (release = r));
      return { done, release, fail };
    };
    let held = hold(false);
    const messagesRoute = (u: URL) => u.pathname.endsWith("/chat/v1/messages");
    await alice.route(messagesRoute, async (route) => {
      if (route.request().method() !== "POST") return route.continue();
      const h = held;
      await h.done;
      if (h.fail) return route.fulfill({ status: 503, json: { error: { code: "ERR_SERVICE_UNAVAILABLE", message: "the store is down; retry" } } });
      return route.continue();
    });
    await composer(alice).fill("Is Friday ok?");
    await composer(alice).press("Enter");
    await expect.poll(() => composer(alice).inputValue()).toBe("");
    await composer(alice).pressSequentially("And Saturday");
    held.release();
    await conversation(bob).getByText("Is Friday ok?").waitFor();
    await conversation(alice).getByText("Is Friday ok?").first().waitFor();
    expect(await composer(alice).inputValue()).toBe("And Saturday");

    held = hold(true);
    await composer(alice).press("Enter");
    await expect.poll(() => composer(alice).inputValue()).toBe("");
    await composer(alice).pressSequentially("or Sunday");
    held.release();
    await conversation(alice).getByRole("alert").filter({ hasText: "the store is down; retry" }).waitFor();
    expect(await composer(alice).inputValue()).toBe("And Saturday\nor Sunday");
    await alice.unroute(messagesRoute);
}
