// The chat-platform side of the end-to-end test (test/e2e): the real @ag-ui/client HttpAgent
// talks to the chef agent at the URL the operator's Ingress routes. Usage:
//   node e2e-platform.mjs <ag-ui URL>
// It exits non-zero on any failed expectation and prints what it saw.
import assert from "node:assert/strict";
import { HttpAgent } from "@ag-ui/client";

const url = process.argv[2];
assert.ok(url, "usage: node e2e-platform.mjs <ag-ui URL>");
const warnings = [];
console.warn = (...args) => warnings.push(args.join(" "));

let n = 0;
async function turn(agent, content) {
  if (content) agent.addMessage({ id: `user-${++n}`, role: "user", content });
  const events = [];
  let pending = [];
  const result = await agent.runAgent({}, {
    onEvent: ({ event }) => void events.push(event),
    onRunFinishedEvent: (p) => void (pending = p.pendingToolCallIds ?? []),
  });
  const types = events.map((e) => e.type);
  assert.equal(types[0], "RUN_STARTED");
  assert.equal(types.at(-1), "RUN_FINISHED", `run ended with ${types.at(-1)}`);
  const text = result.newMessages.filter((m) => m.role === "assistant" && m.content).map((m) => m.content).join(" ");
  return { events, text, pending };
}

// 1. A text turn.
const chat = new HttpAgent({ url });
const hello = await turn(chat, "Hello there");
assert.match(hello.text, /scripted dev model/);
console.log("text turn:", hello.text.slice(0, 80));

// 2. A server tool with its result.
const sub = await turn(chat, "What can I use instead of butter?");
const result = sub.events.find((e) => e.type === "TOOL_CALL_RESULT");
assert.ok(result, "suggest-substitute must report its result");
console.log("server tool result:", result.content);
console.log("server tool answer:", sub.text);

// 3. A frontend action: left pending, executed by "the UI", then the conversation continues.
const recipe = await turn(chat, "I have eggs, spinach and feta. What can I cook?");
const card = recipe.events.find((e) => e.type === "TOOL_CALL_START" && e.toolCallName === "show-recipe-card");
assert.ok(card, "the agent must call the show-recipe-card frontend action");
assert.deepEqual(recipe.pending, [card.toolCallId]);
chat.addMessage({ id: "ui-result-1", role: "tool", toolCallId: card.toolCallId, content: '{"shown":true}' });
const after = await turn(chat);
assert.match(after.text, /recipe card is on your screen/);
console.log("frontend action continued:", after.text);

const bad = warnings.filter((w) => !/Removed unrecognised material at '\/(runId|threadId)'/.test(w));
assert.deepEqual(bad, [], "client warnings");
console.log("platform e2e: ok");
