// A2A conformance: Agentry's Agent2Agent endpoint driven by the official JavaScript SDK from the
// npm registry (@a2a-js/sdk 0.3, the protocol line the Go SDK serves; and 1.x as far as it
// goes). The Go test in this folder starts the runtime and passes its URL in AGENTRY_URL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { ClientFactory as ClientFactory1, DefaultAgentCardResolver as DefaultAgentCardResolver1 } from "a2a-sdk-1/client";

const BASE = process.env.AGENTRY_URL;
assert.ok(BASE, "AGENTRY_URL must be set (run through `go test ./test/conformance`)");
const AUTH = { Authorization: "Bearer conformance-token", "X-Agentry-Test": "yes" };

let seq = 0;
const message = (text) => ({ kind: "message", messageId: `m-${++seq}`, role: "user", parts: [{ kind: "text", text }] });
const textOf = (parts = []) => parts.filter((p) => p.kind === "text").map((p) => p.text).join("");

/** A 0.3 client of agent id, sending headers on every call (none: anonymous). */
async function client(id, headers) {
  const fetchImpl = headers ? (url, init = {}) => fetch(url, { ...init, headers: { ...(init.headers ?? {}), ...headers } }) : fetch;
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] });
  // The base URL ends with a slash: the SDK resolves the card path relative to it.
  return new ClientFactory(options).createFromUrl(`${BASE}/a2a/${id}/`);
}

test("0.3 client: the card is found at the well-known path under the agent's endpoint", async () => {
  const res = await fetch(`${BASE}/a2a/conformance/.well-known/agent-card.json`);
  assert.equal(res.status, 200);
  const card = await res.json();
  assert.equal(card.url, `${BASE}/a2a/conformance`);
  assert.equal(card.preferredTransport, "JSONRPC");
  assert.equal(card.capabilities.streaming, true);
  assert.deepEqual(card.skills.map((s) => s.id), ["weather"]);
  // Mastra's path answers the same card.
  assert.deepEqual(await (await fetch(`${BASE}/.well-known/conformance/agent-card.json`)).json(), card);
});

test("0.3 client: message/send answers a completed task whose artifact is the answer", async () => {
  const c = await client("conformance");
  const task = await c.sendMessage({ message: message("text over A2A") });
  assert.equal(task.kind, "task");
  assert.equal(task.status.state, "completed");
  assert.equal(textOf(task.artifacts[0].parts), 'Hello from the conformance model. You said "text over A2A".');
  // tasks/get reads it back.
  const again = await c.getTask({ id: task.id });
  assert.equal(again.status.state, "completed");
  assert.equal(textOf(again.artifacts[0].parts), textOf(task.artifacts[0].parts));
  // A finished task cannot be canceled; an unknown one is not found.
  await assert.rejects(c.cancelTask({ id: task.id }));
  await assert.rejects(c.getTask({ id: "no-such-task" }));
});

test("0.3 client: message/stream sends the task, the text in pieces and a final completed status", async () => {
  const c = await client("conformance");
  const kinds = [];
  let text = "";
  let last;
  for await (const ev of c.sendMessageStream({ message: message("text streamed over A2A") })) {
    kinds.push(ev.kind);
    if (ev.kind === "artifact-update") text += textOf(ev.artifact.parts);
    last = ev;
  }
  assert.equal(kinds[0], "task");
  assert.ok(kinds.filter((k) => k === "artifact-update").length > 1, `the text came in one piece: ${kinds}`);
  assert.equal(text, 'Hello from the conformance model. You said "text streamed over A2A".');
  assert.equal(last.kind, "status-update");
  assert.equal(last.status.state, "completed");
  assert.equal(last.final, true);
});

test("0.3 client: an agent behind auth shows how in its card, refuses a call without its headers, answers one with them", async () => {
  const card = await (await fetch(`${BASE}/a2a/private/.well-known/agent-card.json`)).json();
  assert.ok(card.securitySchemes?.headers, "the card names the headers scheme");
  await assert.rejects((await client("private")).sendMessage({ message: message("text without headers") }));
  const task = await (await client("private", AUTH)).sendMessage({ message: message("text with headers") });
  assert.equal(task.status.state, "completed");
});

// The 1.x client speaks the protocol's 1.0 wire format; the Go SDK (v0.3.3, the newest the
// module proxy serves) speaks 0.3. The 1.x client reads the 0.3 card, but finds no transport
// of its own in it (1.0 cards list supportedInterfaces with protocol bindings): it refuses to
// build a client, at once and saying why. When a Go SDK for 1.0 is served, this test will fail
// and the card should list both.
test("1.x client: reads the 0.3 card and says it has no compatible transport", async () => {
  const card = await new DefaultAgentCardResolver1().resolve(`${BASE}/a2a/conformance/`);
  assert.equal(card.name, "conformance");
  await assert.rejects(new ClientFactory1().createFromAgentCard(card), /No compatible transport/);
});
