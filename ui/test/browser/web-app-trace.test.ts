// With tracing on, an admin finds the trace of an agent's answer in its Message info; a user
// does not get the option. agentry dev exports to a loopback port nobody listens on: the trace
// ids exist either way (export failures are only logged).
import { describe, expect, test } from "vitest";
import { screenshot } from "./harness";
import { main, send, useWebApp } from "./webapp";

describe("web app: trace ids for admins", () => {
  const app = useWebApp({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });

  test("the chef's answer shows its trace id to the admin only", async () => {
    const admin = await app.signIn("Admin", "/user/chef");
    await main(admin).getByText("Hi! What are we cooking today?").waitFor();
    await send(admin, "What can I use instead of butter?");
    const answer = main(admin).getByRole("article").filter({ hasText: "olive oil" }).last();
    await answer.waitFor({ timeout: 30_000 });
    await answer.hover();
    await answer.getByRole("button", { name: "More options" }).click();
    await admin.getByRole("menuitem", { name: "Message info" }).click();
    const dialog = admin.getByRole("dialog", { name: "Message info" });
    const id = await dialog.locator(".chat-info-dialog__trace-id").textContent();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    await screenshot(admin, "web/trace-id");
    await app.expectAccessible(admin, "message info with a trace id");

    const carol = await app.signIn("Carol", "/user/chef");
    await main(carol).getByText("Hi! What are we cooking today?").waitFor();
    await send(carol, "What can I use instead of butter?");
    const hers = main(carol).getByRole("article").filter({ hasText: "olive oil" }).last();
    await hers.waitFor({ timeout: 30_000 });
    await hers.hover();
    const more = hers.getByRole("button", { name: "More options" });
    if (await more.count()) {
      await more.click();
      expect(await carol.getByRole("menuitem", { name: "Message info" }).count()).toBe(0);
    }
  });
});
