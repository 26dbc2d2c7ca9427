// A page that reloads while an agent is answering (issue 37): the answer continues where it
// was, from the replica bridging the run (the socket's replay), and nothing shows twice once
// the answer is stored. The dev model is paced so the answer streams for several seconds.
// Screenshots in artifacts/web/.
import { describe, expect, test } from "vitest";
import { pageErrors, screenshot } from "./harness";
import { main, send, useWebApp } from "./webapp";

const app = useWebApp({}, ["--model-pace", "400ms"]);

describe("web app on agentry dev: an answer survives a reload", () => {
  test("reloaded mid-answer, the page shows the answer so far at once and goes on; stored once", async () => {
    const alice = await app.signIn("Alice", "/", { width: 1280, height: 800 });
    await alice.getByRole("list", { name: "Agents" }).getByRole("button", { name: /Chef/ }).click();
    await main(alice).getByText("Hi! What are we cooking today?").waitFor();
    const question = "What can I use instead of butter?";
    await send(alice, question);
    const live = main(alice).locator(".chat-agent-live .chat-text-bubble__text");
    const liveText = async () => ((await live.count()) > 0 ? ((await live.last().textContent()) ?? "") : "");
    // A few words in, the page reloads.
    await expect.poll(liveText, { timeout: 30_000 }).toMatch(/\S+\s+\S+\s+\S+/);
    const before = await liveText();
    await alice.reload();
    await main(alice).getByText(question).waitFor();
    // The first text the reloaded page shows is the answer from its start, at least as far as
    // it was: the replay came whole, before the live words.
    await expect.poll(liveText, { timeout: 15_000 }).not.toBe("");
    const after = await liveText();
    await screenshot(alice, "web/agent-resumed");
    await alice.setViewportSize({ width: 390, height: 800 });
    await screenshot(alice, "web/agent-resumed-390");
    await alice.setViewportSize({ width: 1280, height: 800 });

    // The stored answer, as the API gives it, once the run ended.
    const token = await app.dev().mintToken("alice");
    const answer = async () => {
      const page = await app.dev().call<{ items: { sender: string; type: string; text?: string }[] }>("GET", "/users/chef/messages?limit=20", undefined, token);
      return page.items.filter((m) => m.sender === "chef" && (m.type === "assistant" || m.type === "agent_error"));
    };
    // The run's first call only calls a tool; its last one holds the text.
    await expect.poll(async () => (await answer()).some((m) => m.type === "agent_error" || (m.text ?? "").startsWith(before)), { timeout: 30_000 }).toBe(true);
    const stored = (await answer()).at(-1);
    expect(stored?.type).toBe("assistant");
    expect((await answer()).filter((m) => m.type === "agent_error")).toEqual([]);
    const text = stored?.text ?? "";
    expect(text.startsWith(before), `before the reload: ${JSON.stringify(before)}, stored: ${JSON.stringify(text)}`).toBe(true);
    expect(text.startsWith(after), `after the reload: ${JSON.stringify(after)}, stored: ${JSON.stringify(text)}`).toBe(true);
    expect(after.length).toBeGreaterThanOrEqual(before.length);
    // Once stored, the answer is on the page once and nothing streams any more.
    await expect.poll(() => live.count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => main(alice).getByText(text, { exact: true }).count()).toBe(1);
    expect(pageErrors(alice)).toEqual([]);
  });

  test("an agent's failure offers Try again, which asks the agent again once it is back", async () => {
    const dev = app.dev();
    const chef = (await dev.call<{ items: { agentId: string; deploymentUrl?: string }[] }>("GET", "/agents")).items.find((a) => a.agentId === "chef");
    expect(chef?.deploymentUrl).toBeTruthy();
    // An agent whose pod is gone: nothing listens where it is configured.
    await dev.call("PUT", "/agents/sous-chef", { agentId: "sous-chef", name: "Sous-chef", provider: "ag-ui", deploymentUrl: "http://127.0.0.1:9/api/agents/chef/ag-ui", enabled: true });
    const bob = await app.signIn("Bob", "/", { width: 1280, height: 800 });
    await bob.getByRole("list", { name: "Agents" }).getByRole("button", { name: /Sous-chef/ }).click();
    const question = "Anything with leeks?";
    await send(bob, question);
    const error = main(bob).locator(".chat-agentic--error");
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toMatch(/could not answer/);
    await screenshot(bob, "web/agent-try-again");
    await bob.setViewportSize({ width: 390, height: 800 });
    await screenshot(bob, "web/agent-try-again-390");
    await app.expectAccessible(bob, "an agent's error with Try again");
    await bob.setViewportSize({ width: 1280, height: 800 });

    await dev.call("PUT", "/agents/sous-chef", { agentId: "sous-chef", name: "Sous-chef", provider: "ag-ui", deploymentUrl: chef?.deploymentUrl, enabled: true });
    await error.getByRole("button", { name: "Try again" }).click();
    // The agent answers the question as it stands in the conversation; it is not sent twice.
    await main(bob).getByText(`You said: "${question}"`, { exact: false }).waitFor({ timeout: 30_000 });
    await expect.poll(() => main(bob).getByText(question, { exact: true }).count()).toBe(1);
    await expect.poll(() => error.getByRole("button").count()).toBe(0);
    expect(pageErrors(bob)).toEqual([]);
  });
});
