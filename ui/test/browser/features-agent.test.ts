// Agent chat on the real ChatMessageList against `agentry dev` (the samples, the scripted dev
// model): the chef's answer streams in, the show-recipe-card call shows its execution text, the
// frontend action registered in agentActions runs exactly once with complete arguments, its
// result goes back and the final text arrives; a reload shows the history and runs nothing;
// a fresh user sees the greeting, introduction and suggestions, and a suggestion is sent.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDev, type DevProcess } from "../agentry.mjs";
import { events, expectAccessible, expectNoErrors, frames, openCase, screenshot, useBrowser } from "./harness";

interface Seen {
  live: string[];
  runningTools: string[];
}

declare global {
  interface Window {
    __seen: Seen;
  }
}

/** Records what the list shows over time: live bubble texts and running tool chips. */
async function watch(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: Seen = { live: [], runningTools: [] };
    window.__seen = seen;
    const look = () => {
      for (const el of document.querySelectorAll(".chat-agent-live .chat-text-bubble__text")) {
        const t = el.textContent ?? "";
        if (t && seen.live[seen.live.length - 1] !== t) seen.live.push(t);
      }
      for (const el of document.querySelectorAll('.chat-agent-live .chat-agent-tool[data-state="running"]')) {
        const t = el.textContent ?? "";
        if (!seen.runningTools.includes(t)) seen.runningTools.push(t);
      }
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

const question = "I have eggs, spinach and feta. What can I cook?";
const finalText = "The recipe card is on your screen. Enjoy your meal!";

let dev: DevProcess;
beforeAll(async () => {
  dev = await startDev({ env: { OPENAI_API_KEY: "" } });
});
afterAll(() => dev?.stop());
const b = useBrowser({ target: () => dev.base });

const log = (page: Page) => page.getByRole("log");

describe("ChatMessageList agent chat", () => {
  test("chef: streamed answer, 'Showing the recipe card', the action once with complete arguments, the final text; a reload runs nothing", async () => {
    await dev.createUser("alice", "Alice");
    const token = await dev.mintToken("alice");
    const page = await b.newPage();
    await openCase(page, "features-agent", { paceMs: 40 }, { token });
    await page.getByText("Hi! What are we cooking today?").waitFor();
    await watch(page);

    await page.getByLabel("Message", { exact: true }).fill(question);
    await page.getByRole("button", { name: "Send" }).click();
    // The stored answer (an article of the list), after the live bubble that streamed it.
    await log(page).locator("article", { hasText: finalText }).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator(".chat-agent-live").count(), { timeout: 30_000 }).toBe(0);

    // The answer streamed: a live bubble showed the text before the stored message replaced it,
    // and the call showed the action's execution text with a spinner.
    const seen = await page.evaluate(() => window.__seen);
    const partial = seen.live.filter((t) => finalText.startsWith(t) && t.length < finalText.length);
    expect(partial.length, JSON.stringify(seen)).toBeGreaterThan(2);
    expect(seen.runningTools).toContain("Showing the recipe card");

    // The action ran once, with the complete arguments the agent built.
    const runs = await events(page, "action:show-recipe-card");
    expect(runs).toHaveLength(1);
    const args = runs[0]!.args[0] as { title: string; steps: string[] };
    expect(args.title).toBe("Pantry Skillet");
    expect(args.steps[0]).toBe("Prepare the eggs.");
    expect(args.steps).toHaveLength(6);
    await page.getByRole("region", { name: "Recipe: Pantry Skillet" }).waitFor();

    // The stored exchange: the run's steps as compact blocks (the action's result, stored under
    // the user who ran it, among them, not as the user's message); the execution text was for
    // while it ran; the final text.
    const steps = log(page).locator(".chat-agent-steps");
    await expect.poll(() => steps.count()).toBe(2);
    expect(await log(page).getByText("Showing the recipe card").count()).toBe(0);
    expect(await log(page).locator(".chat-message-list__message--outgoing .chat-agentic--tool-result").count()).toBe(0);
    const last = steps.last().getByRole("button", { name: /Used 1 tool/ });
    expect(await last.getAttribute("aria-expanded")).toBe("false");
    await last.click();
    await steps.last().getByRole("listitem").filter({ hasText: "Done: Show recipe card" }).waitFor();
    expect(await steps.locator(".chat-agent-steps__no-reply").count()).toBe(0);
    const history = await dev.call<{ items: { type: string; data?: { result?: string; name?: string } }[] }>(
      "GET", "/users/chef/messages?limit=50", undefined, token,
    );
    const result = history.items.find((m) => m.type === "tool_result" && m.data?.name === "show-recipe-card");
    expect(JSON.parse(result?.data?.result ?? "null")).toEqual({ shown: true, title: "Pantry Skillet" });

    await expectAccessible(page);
    await screenshot(page, "features/agent-chef");
    await expectNoErrors(page);

    // Reload: history shows, the action does not run again.
    await openCase(page, "features-agent", {}, { token });
    await log(page).locator("article", { hasText: finalText }).waitFor();
    await log(page).locator("article", { hasText: question }).waitFor();
    await frames(page, 3); // the loaded history rendered and its effects ran: an action would have started
    expect(await events(page, "action:show-recipe-card")).toEqual([]);
    expect(await page.locator(".recipe-card").count()).toBe(0);
    await screenshot(page, "features/agent-chef-reloaded");
    await expectNoErrors(page);
  });
});

describe("ChatMessageList agent chat: strict mode and a fresh user", () => {
  test("strict mode and two lists of the same conversation: still exactly once", async () => {
    await dev.createUser("erin", "Erin");
    const token = await dev.mintToken("erin");
    const page = await b.newPage();
    await openCase(page, "features-agent", { twice: true }, { token });
    await page.getByRole("log").nth(1).waitFor();
    expect(await page.getByRole("log").count()).toBe(2);
    await page.getByLabel("Message", { exact: true }).fill(question);
    await page.getByRole("button", { name: "Send" }).click();
    await log(page).first().locator("article", { hasText: finalText }).waitFor({ timeout: 60_000 });
    await log(page).nth(1).locator("article", { hasText: finalText }).waitFor();
    expect(await events(page, "action:show-recipe-card")).toHaveLength(1);
    await expectNoErrors(page);
  });

  test("a fresh user: greeting, introduction and suggested messages; a suggestion is sent and answered", async () => {
    await dev.createUser("frank", "Frank");
    const token = await dev.mintToken("frank");
    const page = await b.newPage();
    await openCase(page, "features-agent", {}, { token });
    const welcome = page.getByRole("region", { name: "Welcome from Chef" });
    await welcome.getByText("Hi! What are we cooking today?").waitFor();
    await welcome.getByText("I suggest substitutes and turn what is in your pantry into a recipe.").waitFor();
    const suggestions = welcome.getByRole("group", { name: "Suggested messages" }).getByRole("button");
    expect(await suggestions.allTextContents()).toEqual(["What can I use instead of butter?", question]);
    await expectAccessible(page);
    await screenshot(page, "features/agent-welcome");

    await suggestions.first().click();
    await log(page).locator("article", { hasText: "What can I use instead of butter?" }).waitFor();
    await welcome.waitFor({ state: "detached" });
    // The chef answers with its substitute tool's result.
    await log(page).locator(".chat-message-bubble--agentic", { hasText: /Try / }).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator(".chat-agent-live").count(), { timeout: 30_000 }).toBe(0);
    await screenshot(page, "features/agent-suggestion-answered");
    await expectNoErrors(page);
  });
});
