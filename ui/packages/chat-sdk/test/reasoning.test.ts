// A reasoning model's thinking, through `agentry dev` (the scripted dev model reasons before it
// answers "Think it through: …"): the stored answer carries it (getReasoning, with how long it
// took), never in its text, and the live agent events carry it as AG-UI reasoning events.
import { describe, expect, test } from "vitest";
import { TextMessage, type AgentEvent, type AgenticMessage } from "../src/index";
import { until, useAgentry } from "./harness";

const h = useAgentry("dev");

describe("reasoning", () => {
  test("the answer keeps its reasoning beside its text, with a duration; the live events stream it first", async () => {
    const alice = await h.client("alice");
    await alice.c.sendMessage(new TextMessage("chef", "Think it through: how long should I boil an egg?", "user"));
    const answer = (await alice.rec.until(
      (e) => e.name === "onAgenticMessageReceived" && (e.args[0] as AgenticMessage).getType() === "assistant",
      60_000,
    )).args[0] as AgenticMessage;
    expect(answer.getText()).toMatch(/^Thought it through\./);
    const reasoning = answer.getReasoning();
    expect(reasoning?.text).toMatch(/^The question is "how long should I boil an egg\?"/);
    expect(answer.getText()).not.toContain(reasoning?.text.slice(0, 20));
    // The dev script paces its reasoning at 60 ms a word over 40-odd words.
    expect(reasoning?.durationMs).toBeGreaterThanOrEqual(1000);

    await until(() => alice.rec.firsts<AgentEvent>("onAgentEvent").some((e) => e.event.type === "RUN_FINISHED"), "RUN_FINISHED");
    const events = alice.rec.firsts<AgentEvent>("onAgentEvent").map((e) => e.event);
    const types = events.map((e) => e.type);
    expect(types.indexOf("REASONING_START")).toBeGreaterThan(0);
    expect(types.indexOf("REASONING_END")).toBeLessThan(types.indexOf("TEXT_MESSAGE_START"));
    const live = events.filter((e) => e.type === "REASONING_MESSAGE_CONTENT").map((e) => e.delta ?? "").join("");
    expect(live).toBe(reasoning?.text);
    const reasoningId = events.find((e) => e.type === "REASONING_MESSAGE_START")?.messageId;
    expect(reasoningId).toBeTruthy();
    expect(reasoningId).not.toBe(answer.getAgentMessageId());
  });
});
