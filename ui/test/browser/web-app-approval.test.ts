// A tool call that needs a person's approval, routed to an approver who is not in the
// conversation: Alice asks the steward, Bob (the configured approver) gets the request in his
// conversation with the steward (unread badge), approves it from the card with the keyboard,
// and Alice's card says so live before the answer arrives.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { screenshot } from "./harness";
import { main, send, useWebApp } from "./webapp";

const dir = mkdtempSync(join(tmpdir(), "agentry-approval-"));
const manifest = join(dir, "steward.yaml");
writeFileSync(
  manifest,
  `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: steward}
spec:
  displayName: Steward
  instructions: You suggest substitutes, with a person's approval.
  model: {name: gpt-4o-mini, apiKeySecretRef: {name: openai, key: apiKey}}
  tools:
    - {key: suggest-substitute, toolRef: {name: suggest-substitute}, requireApproval: true, approvalTimeout: 30m}
  platform:
    greeting: I change recipes, once someone approves.
`,
);

describe("web app: approving a tool call", () => {
  const app = useWebApp({}, ["--dir", manifest]);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("the approver outside the conversation approves; the requester sees who did, then the answer", async () => {
    const dev = app.dev();
    // Bob approves the steward's calls (an admin's setting; here through the REST API).
    const put = await fetch(`${dev.api}/agents/steward`, {
      method: "PUT",
      headers: { "Content-Type": "application/json", apikey: dev.apiKey },
      body: JSON.stringify({ provider: "ag-ui", name: "Steward", greeting: "I change recipes, once someone approves.", enabled: true, deploymentUrl: `${dev.base}/api/agents/steward/ag-ui`, approvers: ["bob"] }),
    });
    expect(put.status).toBe(200);

    const bob = await app.signIn("Bob", "/", { width: 1280, height: 800 });
    const alice = await app.signIn("Alice", "/user/steward", { width: 1280, height: 800 });
    await main(alice).getByText("I change recipes, once someone approves.").waitFor();
    await send(alice, "What can I use instead of butter?");

    // Alice sees the request, waiting for Bob, with no buttons.
    const hers = main(alice).getByRole("group", { name: /Suggest substitute$/ });
    await hers.waitFor({ timeout: 30_000 });
    await expect.poll(() => hers.getByRole("status").textContent()).toBe("Waiting for bob");
    expect(await hers.getByRole("button").count()).toBe(0);
    expect(await hers.getByLabel("Arguments").textContent()).toContain('"ingredient": "butter"');

    // Bob has it in his conversation with the steward: an unread badge, then the card.
    const row = bob.getByRole("button", { name: /Steward/ }).first();
    await row.getByLabel(/unread/).waitFor({ timeout: 30_000 });
    await row.click();
    const card = main(bob).getByRole("group", { name: /Suggest substitute$/ });
    await card.waitFor();
    expect(await card.textContent()).toContain("alice");
    await app.expectAccessible(bob, "an approval request");
    await screenshot(bob, "web/approval-1280");
    await bob.setViewportSize({ width: 390, height: 800 });
    await card.scrollIntoViewIfNeeded();
    await screenshot(bob, "web/approval-390");
    await bob.setViewportSize({ width: 1280, height: 800 });

    await card.getByRole("button", { name: "Approve" }).focus();
    await bob.keyboard.press("Enter");
    await expect.poll(() => card.getByRole("status").textContent()).toBe("Approved by bob");
    expect(await card.getByRole("button", { name: "Approve" }).isDisabled()).toBe(true);

    // Alice's card follows live, and the steward answers with the tool's result.
    await expect.poll(() => hers.getByRole("status").textContent(), { timeout: 15_000 }).toBe("Approved by bob");
    await main(alice).getByRole("article").filter({ hasText: "olive oil" }).last().waitFor({ timeout: 30_000 });
    await main(alice).getByText("bob approved suggest-substitute.").waitFor();
    await screenshot(alice, "web/approval-decided-1280");
    await app.expectAccessible(alice, "a decided approval request");
  });
});
