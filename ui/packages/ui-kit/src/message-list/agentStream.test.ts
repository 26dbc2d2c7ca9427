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
});
