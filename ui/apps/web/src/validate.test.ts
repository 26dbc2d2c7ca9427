// The admin forms' checks say what the server (chat/model/agents.go) would answer, in its words.
import { describe, expect, it } from "vitest";
import { fieldOfMessage, forPeople, parseHeaders, pricesOf, takenError, validateAction, validateAgent, validateParameters, type AgentForm } from "./validate";

const p = (v: unknown) => validateParameters(JSON.stringify(v));

describe("validateParameters", () => {
  it("accepts the chef's show-recipe-card schema", () => {
    expect(
      p({
        type: "object",
        required: ["title", "steps"],
        properties: {
          title: { type: "string", description: "The recipe title." },
          steps: { type: "array", items: { type: "string" }, description: "The recipe steps in order." },
        },
      }),
    ).toBeUndefined();
    expect(p({ type: "object", properties: {} })).toBeUndefined();
    expect(p({ type: "object", properties: { a: { type: ["string", "null"], description: "x" } }, required: null })).toBeUndefined();
  });
  it("names the offending field like the server", () => {
    expect(validateParameters("")).toBe("parameters is required");
    expect(validateParameters("{")).toMatch(/^parameters is not valid JSON/);
    expect(p([1])).toBe("parameters must be a JSON object");
    expect(p({ type: "array", properties: {} })).toBe('parameters.type must be "object"');
    expect(p({ type: "object" })).toBe("parameters.properties is required");
    expect(p({ type: "object", properties: [] })).toBe("parameters.properties must be an object whose values are objects");
    expect(p({ type: "object", properties: { a: 1 } })).toBe("parameters.properties must be an object whose values are objects");
    expect(p({ type: "object", properties: { city: { description: "x" } } })).toBe("parameters.properties.city.type is required");
    expect(p({ type: "object", properties: { city: { type: 3, description: "x" } } })).toBe("parameters.properties.city.type must be a string or an array of strings");
    expect(p({ type: "object", properties: { city: { type: "string" } } })).toBe("parameters.properties.city.description is required");
    expect(p({ type: "object", properties: { city: { type: "string", description: "  " } } })).toBe("parameters.properties.city.description is required");
    // Properties are checked in name order, like the server's sorted loop.
    expect(p({ type: "object", properties: { z: { type: "string" }, b: { description: "x" } } })).toBe("parameters.properties.b.type is required");
    expect(p({ type: "object", properties: {}, required: "x" })).toBe("parameters.required must be an array of property names");
    expect(p({ type: "object", properties: { a: { type: "string", description: "x" } }, required: ["a", "b"] })).toBe(
      'parameters.required[1] names "b", which is not in parameters.properties',
    );
  });
});

const agent: AgentForm = {
  agentId: "chef",
  provider: "ag-ui",
  name: "Chef",
  icon: "",
  greeting: "",
  introductoryMessage: "",
  suggestedMessages: "Hi\n\nWhat now?",
  deploymentUrl: "http://127.0.0.1:4111/api/agents/chef/ag-ui",
  agentRef: "",
  headers: "",
  approvers: "",
  audience: "",
  auth: "headers",
  tokenAudience: "",
  inputPrice: "",
  outputPrice: "",
};

describe("validateAgent", () => {
  it("accepts a complete form", () => {
    expect(validateAgent(agent)).toEqual([]);
  });
  it("checks prices: empty is none, a number from 0 to 10000 otherwise", () => {
    expect(validateAgent({ ...agent, inputPrice: "0.15", outputPrice: "0.6" })).toEqual([]);
    expect(validateAgent({ ...agent, inputPrice: "-1", outputPrice: "cheap" })).toEqual([
      { field: "inputPrice", message: "inputPrice must be a number from 0 to 10000" },
      { field: "outputPrice", message: "outputPrice must be a number from 0 to 10000" },
    ]);
    expect(pricesOf({ inputPrice: "", outputPrice: " " })).toBeUndefined();
    expect(pricesOf({ inputPrice: "2.5", outputPrice: "" })).toEqual({ inputPerMillion: 2.5, outputPerMillion: 0 });
  });
  it("reports each field", () => {
    const errs = validateAgent({ ...agent, agentId: "a b", provider: "x", name: " ", deploymentUrl: "ftp://x", headers: '{"bad name": "v"}' });
    expect(Object.fromEntries(errs.map((e) => [e.field, e.message]))).toEqual({
      agentId: "agentId must be 1-64 letters, digits, _ or -",
      provider: "provider must be ag-ui, mastra or a2a",
      name: "name is required",
      deploymentUrl: "deploymentUrl must be an absolute http(s) URL",
      headers: 'headers: "bad name" is not a valid header name',
    });
    expect(validateAgent({ ...agent, deploymentUrl: "" })[0]?.message).toMatch(/^deploymentUrl is required/);
    expect(validateAgent({ ...agent, agentRef: "ns/name" })[0]?.message).toBe("set either deploymentUrl or agentRef, not both");
    expect(validateAgent({ ...agent, deploymentUrl: "https://u:p@x.example/" })[0]?.message).toMatch(/must not hold credentials/);
    expect(validateAgent({ ...agent, suggestedMessages: Array.from({ length: 11 }, (_, i) => `m${i}`).join("\n") })[0]?.field).toBe("suggestedMessages");
    expect(validateAgent({ ...agent, approvers: "bob, group:ops:admins\ngroup:kitchen:moderators" })).toEqual([]);
    expect(validateAgent({ ...agent, approvers: "bob group:ops:owners" })[0]?.message).toBe("approvers[1] must be a uid or group:<guid>:admins or group:<guid>:moderators");
    expect(validateAgent({ ...agent, audience: "dave, group:kitchen\nidp:chefs" })).toEqual([]);
    expect(validateAgent({ ...agent, audience: "dave group:" })[0]?.message).toBe("audience[1] must be a uid, group:<guid> or idp:<provider group>");
    expect(validateAgent({ ...agent, auth: "chat-jwt", tokenAudience: "https://agents.example.com/chef" })).toEqual([]);
    expect(validateAgent({ ...agent, auth: "oauth" })[0]?.message).toBe("auth must be headers, chat-jwt or service-account");
    expect(validateAgent({ ...agent, auth: "service-account" })[0]?.message).toBe("auth: a ServiceAccount token is for in-cluster Agents only; set agentRef (namespace/name)");
    expect(validateAgent({ ...agent, deploymentUrl: "", agentRef: "default/chef", auth: "service-account" })).toEqual([]);
    expect(validateAgent({ ...agent, tokenAudience: "x".repeat(513) })[0]?.field).toBe("tokenAudience");
  });
  it("headers: empty keeps the stored ones, an object replaces them", () => {
    expect(parseHeaders("")).toEqual({});
    expect(parseHeaders('{"Authorization": "Bearer x"}')).toEqual({ headers: { Authorization: "Bearer x" } });
    expect(parseHeaders("[]").error).toBe("headers must be a JSON object");
    expect(parseHeaders('{"A": 1}').error).toBe("headers.A must be a string");
  });
});

describe("validateAction and server errors", () => {
  it("checks every field", () => {
    const errs = validateAction({ name: "", displayName: "", executionText: "", description: "", parameters: "{}" });
    expect(errs.map((e) => e.field)).toEqual(["name", "displayName", "description", "parameters"]);
  });
  it("maps a server message to its form field", () => {
    const fields = ["name", "displayName", "description", "parameters"];
    expect(fieldOfMessage("parameters.properties.city.description is required", fields)).toBe("parameters");
    expect(fieldOfMessage("displayName is required", fields)).toBe("displayName");
    expect(fieldOfMessage(`headers: "x y" is not a valid header name`, ["headers"])).toBe("headers");
    expect(fieldOfMessage("suggestedMessages[2] is required", ["suggestedMessages"])).toBe("suggestedMessages");
    expect(fieldOfMessage("the body is not valid JSON", fields)).toBeUndefined();
  });
});

describe("takenError: a new agent or action must not replace an existing one", () => {
  it("refuses an id or name already in the list, exactly", () => {
    expect(takenError("agent", "chef", ["chef", "weather"])).toMatch(/^an agent with this id exists/);
    expect(takenError("action", "show-recipe-card", ["show-recipe-card"])).toMatch(/^an action with this name exists/);
    expect(takenError("agent", "chef2", ["chef", "weather"])).toBeUndefined();
    expect(takenError("agent", "Chef", ["chef"])).toBeUndefined(); // ids are case-sensitive
    expect(takenError("agent", "", [""])).toBeUndefined();
  });
});

describe("forPeople", () => {
  it("says the form's labels instead of the API's field names", () => {
    expect(forPeople("agentId must be 1-64 letters, digits, _ or -")).toBe("Agent ID must be 1-64 letters, digits, _ or -");
    expect(forPeople("deploymentUrl is required (or agentRef, naming an in-cluster Agent as namespace/name)")).toBe(
      "Deployment URL is required (or In-cluster Agent, naming an in-cluster Agent as namespace/name)",
    );
    expect(forPeople("suggestedMessages[2] is longer than 500 characters")).toBe("Suggested message 3 is longer than 500 characters");
    expect(forPeople("parameters.properties.city.description is required")).toBe("Parameters: properties.city.description is required");
    expect(forPeople("parameters is not valid JSON: x")).toBe("Parameters is not valid JSON: x");
    expect(forPeople("headers.X-Key must be a string")).toBe("Headers: X-Key must be a string");
    expect(forPeople("headers: \"a b\" is not a valid header name")).toBe("Headers: \"a b\" is not a valid header name");
    expect(forPeople('uid "alice" belongs to a user who is not an agent')).toBe('uid "alice" belongs to a user who is not an agent');
    expect(forPeople("an agent with this id exists: choose another id")).toBe("an agent with this id exists: choose another id");
  });
});
