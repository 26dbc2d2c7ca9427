// A reasoning model in the web app (issue 38): the scripted dev model reasons before it answers
// "Think it through: …" (paced, so the reasoning takes a couple of seconds). The answer shows
// with its reasoning folded under it ("Thought for N s"), opened and closed by its button, and
// still there after a reload (stored with the answer, never as its text). Screenshots in
// artifacts/web/.
import { describe, expect, test } from "vitest";
import { pageErrors, screenshot } from "./harness";
import { main, send, useWebApp } from "./webapp";

const app = useWebApp();

describe("web app on agentry dev: a reasoning model's answer", () => {
  test("the reasoning is folded under the answer, 'Thought for N s', expandable, and survives a reload", async () => {
    const alice = await app.signIn("Alice", "/", { width: 1280, height: 800 });
    await alice.getByRole("list", { name: "Agents" }).getByRole("button", { name: /Chef/ }).click();
    await main(alice).getByText("Hi! What are we cooking today?").waitFor();
    await send(alice, "Think it through: how long should I boil an egg?");

    // The stored answer (nothing streams any more), with its reasoning folded.
    const answer = main(alice).locator(".chat-agentic--assistant").filter({ hasText: "Thought it through." });
    await answer.waitFor({ timeout: 30_000 });
    await expect.poll(() => main(alice).locator(".chat-agent-live").count(), { timeout: 30_000 }).toBe(0);
    const toggle = answer.getByRole("button", { name: /^Thought for \d+ s$/ });
    await toggle.waitFor();
    const label = (await toggle.textContent()) ?? "";
    // The dev script paces its reasoning at 60 ms a word: at least a second, however fast.
    expect(Number(/(\d+) s/.exec(label)?.[1])).toBeGreaterThanOrEqual(1);
    const thought = answer.locator(".chat-agent-reasoning__text");
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await thought.isVisible()).toBe(false);
    const answerText = (await answer.locator(".chat-text-bubble__text").textContent()) ?? "";
    expect(answerText).toMatch(/^Thought it through\. A reasoning model would answer/);
    expect(answerText).not.toContain("scripted dev model");
    // Folded under the answer: the disclosure sits below the answer's text.
    const textBox = await answer.locator(".chat-text-bubble").boundingBox();
    const toggleBox = await toggle.boundingBox();
    expect(toggleBox!.y).toBeGreaterThanOrEqual(textBox!.y + textBox!.height - 1);
    await screenshot(alice, "web/reasoning-folded-1280");

    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await thought.waitFor({ state: "visible" });
    expect(await thought.textContent()).toMatch(/^The question is "how long should I boil an egg\?"\. I am the scripted dev model/);
    await screenshot(alice, "web/reasoning-open-1280");
    await app.expectAccessible(alice, "an answer with its reasoning open");
    await alice.setViewportSize({ width: 390, height: 800 });
    await screenshot(alice, "web/reasoning-open-390");
    await app.expectAccessible(alice, "an answer with its reasoning open, 390 px");
    await toggle.click();
    await thought.waitFor({ state: "hidden" });
    await screenshot(alice, "web/reasoning-folded-390");
    await alice.setViewportSize({ width: 1280, height: 800 });

    // From history after a reload: the same answer, the same folded reasoning.
    await alice.reload();
    const again = main(alice).locator(".chat-agentic--assistant").filter({ hasText: "Thought it through." });
    await again.waitFor({ timeout: 30_000 });
    expect(await again.getByRole("button", { name: /^Thought for \d+ s$/ }).textContent()).toBe(label);
    expect(pageErrors(alice)).toEqual([]);
  });
});
