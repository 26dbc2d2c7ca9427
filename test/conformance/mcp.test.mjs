// MCP tools over AG-UI, driven by the real @ag-ui/client: the reference server's tools run on
// the server side, so the stream carries TOOL_CALL_START/ARGS/END and TOOL_CALL_RESULT, then
// the model's answer. The Go test (mcp_test.go) starts the servers and passes AGENTRY_URL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpAgent } from "@ag-ui/client";

const BASE = process.env.AGENTRY_URL;
assert.ok(BASE, "AGENTRY_URL must be set (run through `go test ./test/conformance`)");

async function run(content) {
  const agent = new HttpAgent({ url: `${BASE}/api/agents/mcp/ag-ui`, initialMessages: [{ id: "u1", role: "user", content }] });
  const events = [];
  let runError;
  await agent.runAgent({}, {
    onEvent: ({ event }) => void events.push(event),
    onRunErrorEvent: ({ event }) => void (runError = event),
  });
  return { agent, events, runError, types: events.map((e) => e.type) };
}

for (const [prompt, tool, args, result] of [
  ["mcp-echo", "echo", { message: "from agentry" }, "Echo: from agentry"],
  ["mcp-sse-sum", "sse_get-sum", { a: 2, b: 3 }, "The sum of 2 and 3 is 5."],
]) {
  test(`${tool}: TOOL_CALL_* and TOOL_CALL_RESULT, then the answer`, async () => {
    const { agent, events, runError, types } = await run(prompt);
    assert.equal(runError, undefined);
    const start = events.find((e) => e.type === "TOOL_CALL_START");
    assert.equal(start?.toolCallName, tool);
    const argsText = events.filter((e) => e.type === "TOOL_CALL_ARGS" && e.toolCallId === start.toolCallId).map((e) => e.delta).join("");
    assert.deepEqual(JSON.parse(argsText), args);
    const res = events.find((e) => e.type === "TOOL_CALL_RESULT");
    assert.equal(res?.toolCallId, start.toolCallId);
    assert.equal(JSON.parse(res.content), result); // tool results are JSON; one text is a JSON string
    assert.ok(types.indexOf("TOOL_CALL_END") < types.indexOf("TOOL_CALL_RESULT"));
    assert.equal(types.at(-1), "RUN_FINISHED");
    const text = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    assert.equal(text, `Tool ${tool} answered ${JSON.stringify(result)}`); // the model sees the JSON result too
    // The client's own message list holds the call, its result and the answer.
    const roles = agent.messages.map((m) => m.role);
    assert.deepEqual(roles, ["user", "assistant", "tool", "assistant"]);
  });
}
