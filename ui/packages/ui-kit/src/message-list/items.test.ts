import { describe, expect, it } from "vitest";
import { Chat } from "@agentry/chat-sdk";
import { buildItems } from "./items";

const at = (d: number, h: number, m = 0) => new Date(2024, 4, d, h, m).getTime() / 1000;
const msg = (id: number, from: string, sentAt: number) => {
  const x = new Chat.TextMessage("g", "t", "group");
  x.setId(id);
  x.setSender(new Chat.User(from));
  x.setSentAt(sentAt);
  return x;
};

describe("buildItems", () => {
  const ms = [msg(1, "a", at(1, 9)), msg(2, "a", at(1, 9, 2)), msg(3, "b", at(1, 9, 3)), msg(4, "b", at(1, 9, 30)), msg(5, "b", at(2, 8))];

  it("puts a separator before each day and starts runs on sender change, silence and a new day", () => {
    const items = buildItems(ms, { hideDateSeparator: false, hideGroupActionMessages: false });
    expect(items.map((i) => (i.kind === "message" ? `${i.message.getId()}${i.firstOfRun ? "*" : ""}` : i.kind))).toEqual(["date", "1*", "2", "3*", "4*", "date", "5*"]);
  });

  it("hides separators and places the unread divider", () => {
    const items = buildItems(ms, { hideDateSeparator: true, hideGroupActionMessages: false, firstUnreadId: 3 });
    expect(items.map((i) => (i.kind === "message" ? String(i.message.getId()) : i.kind))).toEqual(["1", "2", "unread", "3", "4", "5"]);
  });
});

describe("agent run steps", () => {
  const agentic = (id: number, from: string, type: string, data: Record<string, unknown>, text = "") => {
    const m = new Chat.AgenticMessage("u", "user", type);
    m.setId(id);
    m.setSender(new Chat.User(from));
    m.setSentAt(at(3, 10, id));
    m.setData(data as never);
    if (text) m.setText(text);
    return m;
  };
  const call = (id: string, name: string, extra: Record<string, unknown> = {}) => ({ id, name, arguments: "{}", ...extra });
  const run = [
    msg(1, "carol", at(3, 10)),
    agentic(2, "chef", "assistant", { runId: "r1", agentId: "chef", toolCalls: [call("c1", "pantry", { displayName: "Recipe from pantry" })] }),
    agentic(3, "chef", "tool_result", { runId: "r1", agentId: "chef", toolCallId: "c1", name: "pantry", result: "{}" }),
    agentic(4, "chef", "assistant", { runId: "r1", agentId: "chef", toolCalls: [call("c2", "show-recipe-card", { frontend: true, displayName: "Show recipe card" })] }, "Here is a recipe."),
    // The frontend action's result, stored under the user who ran it.
    agentic(5, "carol", "tool_result", { runId: "r1", agentId: "chef", toolCallId: "c2", name: "show-recipe-card", frontend: true, result: "{}" }),
  ];
  const shape = (items: ReturnType<typeof buildItems>) =>
    items.map((i) =>
      i.kind === "steps" ? `steps[${i.steps.map((s) => `${s.label}:${s.state}`).join(",")}]${i.noReply ? " no reply" : ""}` : i.kind === "message" ? `${i.message.getId()}${i.toolCallsInSteps ? " (calls in steps)" : ""}` : i.kind,
    );

  it("puts a run's tool calls and results in one block per stretch, the user's frontend result included", () => {
    const answer = agentic(6, "chef", "assistant", { runId: "r1", agentId: "chef" }, "Enjoy your meal!");
    expect(shape(buildItems([...run, answer], { hideDateSeparator: true, hideGroupActionMessages: false }))).toEqual([
      "1",
      "steps[Recipe from pantry:done]",
      "4 (calls in steps)",
      "steps[Show recipe card:done]",
      "6",
    ]);
  });

  it("gives a steps block the answer whose calls it ran, so what a template draws for it follows the steps", () => {
    const items = buildItems(run, { hideDateSeparator: true, hideGroupActionMessages: false });
    const answers = items.map((i) => (i.kind === "steps" ? i.answer?.getId() : undefined));
    // The first block ran message 2's call, which is a step itself (no text): no answer to carry.
    expect(answers).toEqual([undefined, undefined, undefined, 4]);
  });

  it("says the run ended without a reply, unless it is still running", () => {
    expect(shape(buildItems(run, { hideDateSeparator: true, hideGroupActionMessages: false })).at(-1)).toBe("steps[Show recipe card:done] no reply");
    expect(shape(buildItems(run, { hideDateSeparator: true, hideGroupActionMessages: false, agentRunning: true })).at(-1)).toBe("steps[Show recipe card:done]");
    const next = msg(7, "carol", at(3, 11));
    expect(shape(buildItems([...run, next], { hideDateSeparator: true, hideGroupActionMessages: false, agentRunning: true })).slice(-2)).toEqual([
      "steps[Show recipe card:done] no reply",
      "7",
    ]);
  });

  it("a run that stopped for approval has not ended without a reply", () => {
    const held = agentic(8, "chef", "assistant", { runId: "r3", agentId: "chef", toolCalls: [call("h1", "refund")] });
    const request = agentic(9, "chef", "approval_request", { id: "approval_x", toolName: "refund" }, "Chef asks to run refund.");
    expect(shape(buildItems([held, request], { hideDateSeparator: true, hideGroupActionMessages: false }))).toEqual(["steps[Refund:called]", "9"]);
  });

  it("marks a failed step", () => {
    const failed = agentic(8, "chef", "tool_result", { runId: "r2", agentId: "chef", toolCallId: "x", name: "get_weather", error: "timeout" });
    const items = buildItems([failed], { hideDateSeparator: true, hideGroupActionMessages: false });
    expect(items[0]).toMatchObject({ kind: "steps", steps: [{ label: "Get weather", state: "error", error: "timeout" }] });
  });
});
