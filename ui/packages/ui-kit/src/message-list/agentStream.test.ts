import { describe, expect, it } from "vitest";
import { agentStreamReducer, emptyStream, streamMessages, type AgentUIEvent } from "./agentStream";

const run = (events: AgentUIEvent[]) =>
  events.reduce((s, event) => agentStreamReducer(s, { type: "event", runId: "run_1", agentId: "chef", event }), emptyStream);

describe("agentStreamReducer", () => {
  it("builds text from deltas and chunks", () => {
    const s = run([
      { type: "RUN_STARTED" },
      { type: "TEXT_MESSAGE_START", messageId: "m1" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Try " },
      { type: "TEXT_MESSAGE_CHUNK", delta: "olive oil." },
    ]);
    expect(streamMessages(s).map((m) => m.text)).toEqual(["Try olive oil."]);
    expect(s.running).toEqual({ runId: "run_1", agentId: "chef" });
  });

  it("builds a message anew when its stream is replayed from the start (a run taken over)", () => {
    const first = [
      { type: "RUN_STARTED" },
      { type: "TEXT_MESSAGE_START", messageId: "m1" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "one " },
      { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "weather", parentMessageId: "m1" },
      { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"city":' },
    ];
    const replay = [
      ...first,
      { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '"Lima"}' },
      { type: "TOOL_CALL_END", toolCallId: "c1" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "two" },
    ];
    const s = run([...first, ...replay]);
    expect(streamMessages(s).map((m) => m.text)).toEqual(["one two"]);
    const call = streamMessages(s)[0]!.toolCalls;
    expect(call).toHaveLength(1);
    expect(call[0]!.args).toEqual({ city: "Lima" });
  });

  it("drops what is live of a run when one of its calls starts (a call asked again after a take-over), keeps other runs", () => {
    let s = run([{ type: "RUN_STARTED" }, { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "one two" }]);
    s = agentStreamReducer(s, { type: "event", runId: "run_2", agentId: "chef", event: { type: "TEXT_MESSAGE_CONTENT", messageId: "x", delta: "other" } });
    for (const event of [{ type: "RUN_STARTED" }, { type: "TEXT_MESSAGE_START", messageId: "m9" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m9", delta: "one" }]) {
      s = agentStreamReducer(s, { type: "event", runId: "run_1", agentId: "chef", event });
    }
    expect(streamMessages(s).map((m) => `${m.runId}:${m.text}`)).toEqual(["run_2:other", "run_1:one"]);
  });

  it("never revives a message whose stored copy arrived (a late live frame, a replay that crossed it)", () => {
    let s = run([{ type: "RUN_STARTED" }, { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hi" }]);
    s = agentStreamReducer(s, { type: "stored", messageId: "m1" });
    s = agentStreamReducer(s, { type: "stored", messageId: "tool-c9" });
    for (const event of [
      { type: "TEXT_MESSAGE_START", messageId: "m1" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hi" },
      { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "weather", parentMessageId: "m1" },
      { type: "TOOL_CALL_START", toolCallId: "c9", toolCallName: "weather" },
    ]) {
      s = agentStreamReducer(s, { type: "event", runId: "run_1", agentId: "chef", event });
    }
    expect(streamMessages(s)).toEqual([]);
    s = agentStreamReducer(s, { type: "event", runId: "run_1", agentId: "chef", event: { type: "TEXT_MESSAGE_CONTENT", messageId: "m2", delta: "Next" } });
    expect(streamMessages(s).map((m) => m.text)).toEqual(["Next"]);
  });

  it("exposes tool arguments only once the call ended, parsed", () => {
    let s = run([
      { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "show-recipe-card", parentMessageId: "m1", displayName: "Show recipe card", executionText: "Showing the recipe card", frontend: true },
      { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"title":"Fri' },
    ]);
    let call = streamMessages(s)[0]!.toolCalls[0]!;
    expect(call.args).toBeUndefined();
    expect(call.ended).toBe(false);
    expect(call.executionText).toBe("Showing the recipe card");
    s = agentStreamReducer(s, { type: "event", runId: "run_1", agentId: "chef", event: { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: 'ttata"}' } });
    s = agentStreamReducer(s, { type: "event", runId: "run_1", agentId: "chef", event: { type: "TOOL_CALL_END", toolCallId: "c1" } });
    call = streamMessages(s)[0]!.toolCalls[0]!;
    expect(call.args).toEqual({ title: "Frittata" });
    // Arguments after the end are ignored.
    s = agentStreamReducer(s, { type: "event", runId: "run_1", agentId: "chef", event: { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: "x" } });
    expect(streamMessages(s)[0]!.toolCalls[0]!.argsText).toBe('{"title":"Frittata"}');
  });

  it("keeps malformed arguments unparsed", () => {
    const s = run([
      { type: "TOOL_CALL_CHUNK", toolCallId: "c2", toolCallName: "x", delta: '{"a":' },
      { type: "TOOL_CALL_END", toolCallId: "c2" },
    ]);
    const call = streamMessages(s)[0]!.toolCalls[0]!;
    expect(call.ended).toBe(true);
    expect(call.args).toBeUndefined();
  });

  it("drops a live message once its stored copy arrives, and records a run error", () => {
    let s = run([{ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "hi" }, { type: "RUN_ERROR", code: "AGENT_IDLE_TIMEOUT", message: "Chef could not answer." }]);
    expect(s.error?.code).toBe("AGENT_IDLE_TIMEOUT");
    expect(s.running).toBeUndefined();
    s = agentStreamReducer(s, { type: "stored", messageId: "m1" });
    expect(streamMessages(s)).toEqual([]);
  });

  it("two lists do not share state", () => {
    const a = run([{ type: "TEXT_MESSAGE_START", messageId: "a" }]);
    const b = agentStreamReducer(emptyStream, { type: "event", runId: "r", agentId: "x", event: { type: "TEXT_MESSAGE_CHUNK", delta: "orphan" } });
    expect(a.lastMessageId).toBe("a");
    expect(streamMessages(b)).toEqual([]);
  });
  it("shows reasoning alone until its answer starts, then folds it onto that answer with its duration", () => {
    const thinking = run([
      { type: "RUN_STARTED", timestamp: 1_000 },
      { type: "REASONING_START", messageId: "r1", timestamp: 1_000 },
      { type: "REASONING_MESSAGE_START", messageId: "r1", timestamp: 1_000 },
      { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "Let me ", timestamp: 1_500 },
      { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "think.", timestamp: 2_000 },
    ]);
    expect(streamMessages(thinking).map((m) => [m.messageId, m.text, m.reasoning])).toEqual([["r1", "", { text: "Let me think.", startedAt: 1_000 }]]);
    expect(thinking.thinking).toBe("r1");

    const answered = [
      { type: "REASONING_MESSAGE_END", messageId: "r1", timestamp: 4_000 },
      { type: "REASONING_END", messageId: "r1", timestamp: 4_100 },
      { type: "TEXT_MESSAGE_START", messageId: "m1", timestamp: 4_200 },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Four.", timestamp: 4_300 },
    ].reduce((s, event) => agentStreamReducer(s, { type: "event", runId: "run_1", agentId: "chef", event }), thinking);
    expect(streamMessages(answered).map((m) => [m.messageId, m.text, m.reasoning])).toEqual([["m1", "Four.", { text: "Let me think.", startedAt: 1_000, endedAt: 4_000 }]]);
    expect(answered.thinking).toBeUndefined();
    // The stored answer replaces the live one, reasoning and all.
    expect(streamMessages(agentStreamReducer(answered, { type: "stored", messageId: "m1" }))).toEqual([]);
  });

  it("ends reasoning when a tool call starts without REASONING_END, at the call's time; events without timestamps use their arrival", () => {
    const s = [
      { type: "RUN_STARTED" },
      { type: "REASONING_MESSAGE_CHUNK", messageId: "r1", delta: "Need the " },
      { type: "REASONING_MESSAGE_CHUNK", delta: "weather." },
    ].reduce((st, event, i) => agentStreamReducer(st, { type: "event", runId: "run_1", agentId: "chef", event, at: 10 + i }), emptyStream);
    const called = agentStreamReducer(s, { type: "event", runId: "run_1", agentId: "chef", at: 3_000, event: { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "weather", parentMessageId: "m1" } });
    expect(streamMessages(called).map((m) => [m.messageId, m.toolCalls.length, m.reasoning])).toEqual([["m1", 1, { text: "Need the weather.", startedAt: 11, endedAt: 3_000 }]]);
  });

  it("drops reasoning no answer followed when the run finishes (its stored copy went to the last answer), and builds a replayed span anew", () => {
    const events: AgentUIEvent[] = [
      { type: "RUN_STARTED" },
      { type: "REASONING_START", messageId: "r1" },
      { type: "REASONING_MESSAGE_START", messageId: "r1" },
      { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "Hm." },
    ];
    const replayed = run([...events, ...events.slice(1)]);
    expect(streamMessages(replayed).map((m) => m.reasoning?.text)).toEqual(["Hm."]);
    const finished = agentStreamReducer(replayed, { type: "event", runId: "run_1", agentId: "chef", event: { type: "RUN_FINISHED" } });
    expect([streamMessages(finished), finished.thinking, finished.running]).toEqual([[], undefined, undefined]);
  });
});
