// Agent chat against `agentry dev` on the samples: chef streams its answer as agent events,
// stores an assistant message awaiting the show-recipe-card frontend action, and finishes once
// the client posts the action's result. An admin disabling an agent reaches every session's
// onAgentsChanged.
import { describe, expect, test } from "vitest";
import { Chat, TextMessage, type AgentEvent, type AgenticMessage, type ChatException } from "../src/index";
import { until, useAgentry } from "./harness";

const h = useAgentry("dev");

describe("agents", () => {
  test("chef: streamed events, the awaited show-recipe-card action, its result, the final text", async () => {
    const alice = await h.client("alice");
    const profile = await alice.c.getAgentProfile("chef");
    expect(profile.agentId).toBe("chef");
    expect(profile.name.length).toBeGreaterThan(0);
    expect(Array.isArray(profile.suggestedMessages)).toBe(true);
    const chef = await alice.c.getUser("chef");
    expect(chef.getKind()).toBe("agent");

    const sent = await alice.c.sendMessage(new TextMessage("chef", "I have eggs, spinach and feta. What can I cook?", "user"));
    const runId = sent.getAgentRunId();
    expect(runId).toBeTruthy();

    // The stored assistant message that waits for the frontend action, live.
    const awaiting = (await alice.rec.until(
      (e) => e.name === "onAgenticMessageReceived" && (e.args[0] as AgenticMessage).getAwaitingActions().length > 0,
      60_000,
    )).args[0] as AgenticMessage;
    expect([awaiting.getType(), awaiting.getCategory(), awaiting.getSender()?.getUid(), awaiting.getExecutor(), awaiting.getRunId()]).toEqual([
      "assistant",
      "agentic",
      "chef",
      "alice",
      runId,
    ]);
    const callId = awaiting.getAwaitingActions()[0] ?? "";
    const call = awaiting.getToolCalls().find((c) => c.id === callId);
    expect([call?.name, call?.frontend]).toEqual(["show-recipe-card", true]);
    expect(() => JSON.parse(call?.arguments ?? "")).not.toThrow();

    // The live events of the run so far, all under the chat-level run id, in AG-UI order.
    const events = alice.rec.firsts<AgentEvent>("onAgentEvent");
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.runId === runId && e.agentId === "chef" && e.conversationId === "user_alice_user_chef")).toBe(true);
    const types = events.map((e) => e.event.type);
    expect(types[0]).toBe("RUN_STARTED");
    const start = events.find((e) => e.event.type === "TOOL_CALL_START" && e.event.toolCallId === callId);
    expect([start?.event.toolCallName, start?.event.frontend]).toEqual(["show-recipe-card", true]);
    expect(types.indexOf("TOOL_CALL_START")).toBeLessThan(types.lastIndexOf("TOOL_CALL_END"));

    const result = (await alice.c.sendActionResult(runId ?? "", callId, { result: { shown: true } })) as AgenticMessage;
    expect([result.getType(), result.getToolResult()?.toolCallId, result.getToolResult()?.result]).toEqual(["tool_result", callId, '{"shown":true}']);
    const again = (await alice.c.sendActionResult(runId ?? "", callId, { result: { shown: true } }).catch((e: unknown) => e)) as ChatException;
    expect(again.code).toBe("ERR_ACTION_NOT_PENDING");

    const final = (await alice.rec.until(
      (e) => e.name === "onAgenticMessageReceived" && (e.args[0] as AgenticMessage).getText().includes("Enjoy your meal"),
      60_000,
    )).args[0] as AgenticMessage;
    expect([final.getType(), final.getRunId(), final.getAwaitingActions()]).toEqual(["assistant", runId, []]);
    // Each AG-UI call of the run (before and after the action) finished.
    await until(() => alice.rec.firsts<AgentEvent>("onAgentEvent").filter((e) => e.event.type === "RUN_FINISHED").length === 2, "the second RUN_FINISHED");
    // The streamed text of the final answer adds up to the stored text.
    const deltas = alice.rec
      .firsts<AgentEvent>("onAgentEvent")
      .filter((e) => e.event.type === "TEXT_MESSAGE_CONTENT" && e.event.messageId === final.getAgentMessageId())
      .map((e) => e.event.delta ?? "")
      .join("");
    expect(deltas).toBe(final.getText());
    // History has the whole exchange; the agentic messages never came through other callbacks.
    const history = await new Chat.MessagesRequestBuilder().setUID("chef").build(alice.c).fetchPrevious();
    expect(history.map((m) => m.getType())).toEqual(expect.arrayContaining(["text", "assistant", "tool_result"]));
    expect(alice.rec.named("onTextMessageReceived").map((e) => (e.args[0] as TextMessage).getSender()?.getUid())).toEqual(["alice"]);
  });
});

describe("agents: AI features and administration", () => {
  test("AI features are off until an assistant agent is chosen", async () => {
    const bob = await h.client("bob");
    expect(await bob.c.isAIEnabled()).toBe(false);
    await expect(bob.c.getSmartReplies("chef", "user")).rejects.toMatchObject({ code: "ERR_AI_DISABLED" });
    await expect(bob.c.getConversationStarter("chef", "user")).rejects.toMatchObject({ code: "ERR_AI_DISABLED" });
    const m = await bob.c.sendMessage(new TextMessage("chef", "Hello", "user"));
    await expect(bob.c.translateMessage(m.getId(), "French")).rejects.toMatchObject({ code: "ERR_AI_DISABLED" });
    await expect(bob.c.getAgentProfile("nobody")).rejects.toMatchObject({ code: "ERR_UID_NOT_FOUND" });

    // Chosen (REST API key): the assistant answers through the scripted dev model.
    await h.proc.call("PUT", "/ai/assistant", { agentId: "chef" });
    expect(await bob.c.isAIEnabled()).toBe(true);
    const strings = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string" && x.length > 0);
    expect(strings(await bob.c.getSmartReplies("chef", "user"))).toBe(true);
    expect(strings(await bob.c.getConversationStarter("chef", "user"))).toBe(true);
    expect((await bob.c.translateMessage(m.getId(), "French")).length).toBeGreaterThan(0);
    await h.proc.call("DELETE", "/ai/assistant");
  });

  test("an admin disabling and enabling an agent tells every session: onAgentsChanged with the id", async () => {
    const [alice, bob, admin] = await Promise.all([h.client("alice"), h.client("bob"), h.client("admin")]);
    expect((await admin.c.setAgentEnabled("weather", false)).enabled).toBe(false);
    try {
      for (const s of [alice, bob]) {
        const e = await s.rec.until((e) => e.name === "onAgentsChanged");
        expect(e.args).toEqual(["weather"]);
      }
      await expect(alice.c.getAgentProfile("weather")).rejects.toMatchObject({ code: "ERR_UID_NOT_FOUND" });
    } finally {
      await admin.c.setAgentEnabled("weather", true);
    }
    await bob.rec.count("onAgentsChanged", 2);
    expect((await alice.c.getAgentProfile("weather")).agentId).toBe("weather");
  });

  test("try again: retryAgentRun asks the agent of a failed run again; only an agent's error can be retried", async () => {
    const [admin, carol] = await Promise.all([h.client("admin"), h.client("carol")]);
    await admin.c.saveAgentConfig("gone", { name: "Gone", provider: "ag-ui", deploymentUrl: "http://127.0.0.1:9/api/agents/gone/ag-ui", suggestedMessages: [], enabled: true });
    try {
      const asked = await carol.c.sendMessage(new TextMessage("gone", "Are you there?", "user"));
      const failed = (await carol.rec.until((e) => e.name === "onAgenticMessageReceived" && (e.args[0] as AgenticMessage).getType() === "agent_error", 30_000))
        .args[0] as AgenticMessage;
      const runId = await carol.c.retryAgentRun(failed.getId());
      expect(runId).toMatch(/^run_/);
      expect(runId).not.toBe(asked.getAgentRunId());
      // Still nobody there: the retried run fails as the first did, under its own id.
      await carol.rec.until((e) => e.name === "onAgenticMessageReceived" && (e.args[0] as AgenticMessage).getType() === "agent_error" && (e.args[0] as AgenticMessage).getRunId() === runId, 30_000);
      await expect(carol.c.retryAgentRun(asked.getId())).rejects.toMatchObject({ code: "ERR_VALIDATION" });
    } finally {
      await admin.c.deleteAgentConfig("gone");
    }
  });

  test("usage: a run's tokens reach the admins' usage per agent, with a cost once the agent has prices; others may not read it", async () => {
    const [admin, dave, bob] = await Promise.all([h.client("admin"), h.client("dave"), h.client("bob")]);
    const before = (await admin.c.getAgentUsage()).items.find((u) => u.agentId === "chef");
    await dave.c.sendMessage(new TextMessage("chef", "What can I use instead of butter?", "user"));
    await dave.rec.until((e) => e.name === "onAgenticMessageReceived" && (e.args[0] as AgenticMessage).getText().includes("olive oil"), 60_000);

    const report = await admin.c.getAgentUsage();
    expect(report.todaySince).toMatch(/T00:00:00Z$/);
    expect(Date.parse(report.todaySince) - Date.parse(report.last7DaysSince)).toBe(6 * 24 * 3600 * 1000);
    const chef = report.items.find((u) => u.agentId === "chef");
    expect(chef?.today.runs).toBe((before?.today.runs ?? 0) + 1);
    expect(chef?.today.inputTokens).toBeGreaterThan(before?.today.inputTokens ?? 0);
    expect(chef?.today.outputTokens).toBeGreaterThan(before?.today.outputTokens ?? 0);
    expect(chef?.last7Days.runs).toBeGreaterThanOrEqual(chef?.today.runs ?? Infinity);

    // Prices, saved with the configuration, give a cost; without them there is none.
    const config = (await admin.c.getAgentConfigs()).find((a) => a.agentId === "chef");
    if (!config) throw new Error("no chef configuration");
    const { agentId: _id, hasHeaders: _h, capabilities: _c, ...write } = config;
    expect(chef?.today.cost).toBeUndefined();
    await admin.c.saveAgentConfig("chef", { ...write, prices: { inputPerMillion: 2, outputPerMillion: 8 } });
    try {
      const priced = (await admin.c.getAgentUsage()).items.find((u) => u.agentId === "chef");
      expect(priced?.prices).toEqual({ inputPerMillion: 2, outputPerMillion: 8 });
      expect(priced?.today.cost).toBeCloseTo(((priced?.today.inputTokens ?? 0) * 2 + (priced?.today.outputTokens ?? 0) * 8) / 1e6, 12);
    } finally {
      await admin.c.saveAgentConfig("chef", write);
    }
    await expect(bob.c.getAgentUsage()).rejects.toMatchObject({ code: "ERR_PERMISSION_DENIED", details: { status: 403 } });
  });

  test("admins read and write agent configurations and frontend actions; others may not", async () => {
    const [admin, bob] = await Promise.all([h.client("admin"), h.client("bob")]);
    const chef = (await admin.c.getAgentConfigs()).find((a) => a.agentId === "chef");
    expect(chef).toMatchObject({ agentId: "chef", enabled: true });
    const saved = await admin.c.saveFrontendAction("chef", "wave", { displayName: "Wave", description: "Waves", parameters: { type: "object", properties: {} } });
    expect(saved).toMatchObject({ agentId: "chef", name: "wave", displayName: "Wave" });
    expect((await admin.c.getFrontendActions("chef")).map((a) => a.name)).toContain("wave");
    await admin.c.deleteFrontendAction("chef", "wave");
    expect((await admin.c.getFrontendActions("chef")).map((a) => a.name)).not.toContain("wave");
    expect(admin.c.getAuthToken()).toMatch(/./);
    await expect(bob.c.getAgentConfigs()).rejects.toMatchObject({ code: "ERR_PERMISSION_DENIED", details: { status: 403 } });
  });
});
