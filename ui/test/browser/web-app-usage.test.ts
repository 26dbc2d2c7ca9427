// The admins' agent list shows what each agent supports (badges from its AG-UI capabilities) and
// its usage from the chat's own records (issue 38): after
// Alice's run with chef, its row says 1 run and the tokens the run reported today and over 7
// days, "—" for cost until the admin sets prices, then the cost at those prices. Screenshots at
// 1280 and 390 px (artifacts/web/admin-usage-*.png).
import type { Chat } from "@agentry/chat-sdk";
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { pageErrors, screenshot } from "./harness";
import { main, send, useWebApp } from "./webapp";

const app = useWebApp();
const { signIn, expectAccessible } = app;

const usageOf = async (agentId: string): Promise<Chat.AgentUsage | undefined> =>
  (await app.dev().call<Chat.AgentUsageReport>("GET", "/agent-usage", undefined, await app.dev().mintToken("admin"))).items.find((u) => u.agentId === agentId);

/** A period's line of an agent's usage: runs and tokens, then the cost ("|" between the two cells). */
const row = (page: Page, agentId: string, period: "today" | "7d") =>
  page.locator(`[data-usage="${agentId}"] [data-period="${period}"] dd`).evaluateAll((dds) => dds.map((d) => d.textContent).join(" | "));

// The web app's own formats (AdminPage.tsx), here as the expected text.
const tokens = (n: number) => (n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k` : `${(n / 1_000_000).toFixed(1)}M`);
const money = (v: number) => (v > 0 && v < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`);

describe("web app: the admins' agent list shows usage and cost", () => {
  test("a run's tokens, no cost without prices, the cost once prices are saved; at 1280 and 390 px", async () => {
    const alice = await signIn("Alice", "/user/chef");
    await send(alice, "What can I use instead of butter?");
    await main(alice).getByRole("article").filter({ hasText: "olive oil" }).last().waitFor({ timeout: 30_000 });

    const used = await usageOf("chef");
    expect(used?.today.runs).toBe(1);
    expect(used?.today.inputTokens).toBeGreaterThan(0);
    const line = (u: Chat.UsageTotals, cost: string) => `1 run · ${tokens(u.inputTokens)} in · ${tokens(u.outputTokens)} out | ${cost}`;

    const admin = await signIn("Admin", "/admin", { width: 1280, height: 800 });
    const nav = admin.getByRole("navigation", { name: "Agents" });
    await expect.poll(() => row(admin, "chef", "today")).toBe(line(used!.today, "—"));
    expect(await row(admin, "chef", "7d")).toBe(line(used!.last7Days, "—"));
    // An agent nobody used: zeros.
    expect(await row(admin, "weather", "today")).toBe("0 runs · 0 in · 0 out | —");
    await nav.getByText("Today is since 00:00 UTC").waitFor();
    // What each agent says it supports, as badges (agentry dev registers them from the runtime).
    expect(await nav.getByRole("list", { name: "What Chef supports" }).getByRole("listitem").allTextContents()).toEqual(["Streaming", "2 tools", "Frontend tools", "Reasoning"]);

    // Prices in chef's form: the list shows the cost at them.
    await nav.locator('[data-agent="chef"]').click();
    const form = main(admin);
    await form.getByLabel("Input price").fill("2.5");
    await form.getByLabel("Output price").fill("10");
    await form.getByRole("button", { name: "Save" }).click();
    await form.getByRole("status").getByText("Saved.").waitFor();
    const priced = await usageOf("chef");
    expect(priced?.prices).toEqual({ inputPerMillion: 2.5, outputPerMillion: 10 });
    const cost = (priced!.today.inputTokens * 2.5 + priced!.today.outputTokens * 10) / 1e6;
    await expect.poll(() => row(admin, "chef", "today")).toBe(line(priced!.today, money(cost)));
    await screenshot(admin, "web/admin-usage-1280");
    await expectAccessible(admin, "admin agent list with usage at 1280 px");

    // A price that is not a number is refused at the field, before any request.
    await form.getByLabel("Output price").fill("cheap");
    await form.getByRole("button", { name: "Save" }).click();
    await form.getByText("Output price must be a number from 0 to 10000").waitFor();

    const phone = await signIn("Admin", "/admin", { width: 390, height: 844 });
    await expect.poll(() => row(phone, "chef", "today")).toBe(line(priced!.today, money(cost)));
    // Nothing is wider than the phone: the top bar with an admin's three tabs, the badges and
    // the usage lines all fit (the top bar once made the whole page 400 px wide).
    const overflow = await phone.evaluate(() => {
      const wide = [...document.querySelectorAll<HTMLElement>(".agentry-web *")]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className} right=${Math.round(e.getBoundingClientRect().right)}`);
      return { page: document.documentElement.scrollWidth, wide: wide.slice(0, 8) };
    });
    expect(overflow).toEqual({ page: 390, wide: [] });
    await screenshot(phone, "web/admin-usage-390");
    await expectAccessible(phone, "admin agent list with usage at 390 px");
    expect(pageErrors(admin)).toEqual([]);
    expect(pageErrors(phone)).toEqual([]);
  });
});
