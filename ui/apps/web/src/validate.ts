// The server's validation rules (chat/model/agents.go: AgentConfig.Validate, ValidateHeaders,
// FrontendAction.Validate, ValidateParameters), mirrored so the admin forms say what is wrong
// while the admin types. The server checks again; its errors name the field the same way.

/** An error for one form field: `field` is the form's field key, `message` the sentence. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

const agentName = /^[A-Za-z0-9_-]{1,64}$/;
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const agentRefPattern = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\/[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export const maxSuggestedMessages = 10;
const maxHeaders = 32;

const runes = (s: string): number => [...s].length;

function checkField(field: string, v: string, max: number, required: boolean): string | undefined {
  if (required && v.trim() === "") return `${field} is required`;
  if (runes(v) > max) return `${field} is longer than ${max} characters`;
  return undefined;
}

export interface AgentForm {
  agentId: string;
  provider: string;
  name: string;
  icon: string;
  greeting: string;
  introductoryMessage: string;
  /** One message per line. */
  suggestedMessages: string;
  deploymentUrl: string;
  agentRef: string;
  /** A JSON object, or empty to keep the stored headers. */
  headers: string;
  /** Approvers, separated by commas, spaces or lines. */
  approvers: string;
  /** Who may use the agent, separated by commas, spaces or lines; empty: everyone. */
  audience: string;
  /** headers or chat-jwt. */
  auth: string;
  /** The aud of chat-jwt tokens; empty: the Deployment URL. */
  tokenAudience: string;
  /** US dollars per million input and output tokens; both empty: no prices (no cost shown). */
  inputPrice: string;
  outputPrice: string;
}

// chat/model/agents.go: MaxPricePerMillion.
export const maxPricePerMillion = 10000;

/** The form's prices: undefined when both are empty; an empty one of the two is 0. */
export function pricesOf(f: Pick<AgentForm, "inputPrice" | "outputPrice">): { inputPerMillion: number; outputPerMillion: number } | undefined {
  const i = f.inputPrice.trim();
  const o = f.outputPrice.trim();
  if (i === "" && o === "") return undefined;
  return { inputPerMillion: i === "" ? 0 : Number(i), outputPerMillion: o === "" ? 0 : Number(o) };
}

function priceError(field: string, v: string): string | undefined {
  if (v.trim() === "") return undefined;
  const n = Number(v.trim());
  // Number("1e3") is a number too; the server takes any JSON number in range.
  return Number.isFinite(n) && n >= 0 && n <= maxPricePerMillion ? undefined : `${field} must be a number from 0 to ${maxPricePerMillion}`;
}

export const maxApprovers = 20;
export const maxAudience = 50;
// chat/model/audience.go: a uid, group:<guid> or idp:<provider group>.
const audienceEntry = /^(?:group:[A-Za-z0-9_.@-]{1,100}|idp:\S{1,200}|[A-Za-z0-9_.@-]{1,100})$/;
const approverEntry = /^(?:[A-Za-z0-9_-]{1,100}|group:[A-Za-z0-9_-]{1,100}:(?:admins|moderators))$/;

/** The approvers of the form: uids and group:<guid>:admins|moderators entries. */
export function approverList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** The suggested messages of the form (one per non-blank line). */
export function suggestedList(text: string): string[] {
  return text
    .split("\n")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Parses the headers field: undefined when empty (keep the stored ones). */
export function parseHeaders(text: string): { headers?: Record<string, string>; error?: string } {
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { error: "headers must be a JSON object" };
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { error: "headers must be a JSON object" };
  const out: Record<string, string> = {};
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > maxHeaders) return { error: `headers holds more than ${maxHeaders} entries` };
  for (const [k, val] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (typeof val !== "string") return { error: `headers.${k} must be a string` };
    if (!headerName.test(k)) return { error: `headers: "${k}" is not a valid header name` };
    if (val.length > 8000 || /[\r\n\0]/.test(val)) return { error: `headers.${k} has an invalid value (too long or holds line breaks)` };
    out[k] = val;
  }
  return { headers: out };
}

/** Every error of an agent configuration form, first per field. */
export function validateAgent(f: AgentForm): FieldError[] {
  const errs: FieldError[] = [];
  const add = (field: string, message: string | undefined) => {
    if (message && !errs.some((e) => e.field === field)) errs.push({ field, message });
  };
  if (!agentName.test(f.agentId)) add("agentId", "agentId must be 1-64 letters, digits, _ or -");
  if (f.provider !== "ag-ui" && f.provider !== "mastra" && f.provider !== "a2a") add("provider", "provider must be ag-ui, mastra or a2a");
  add("name", checkField("name", f.name, 100, true));
  add("icon", checkField("icon", f.icon, 1000, false));
  add("greeting", checkField("greeting", f.greeting, 1000, false));
  add("introductoryMessage", checkField("introductoryMessage", f.introductoryMessage, 4000, false));
  const suggested = suggestedList(f.suggestedMessages);
  if (suggested.length > maxSuggestedMessages) add("suggestedMessages", `suggestedMessages holds more than ${maxSuggestedMessages} messages`);
  suggested.forEach((m, i) => add("suggestedMessages", checkField(`suggestedMessages[${i}]`, m, 500, true)));
  const approvers = approverList(f.approvers);
  if (approvers.length > maxApprovers) add("approvers", `approvers holds more than ${maxApprovers} entries`);
  approvers.forEach((a, i) => {
    if (!approverEntry.test(a)) add("approvers", `approvers[${i}] must be a uid or group:<guid>:admins or group:<guid>:moderators`);
  });
  const audience = approverList(f.audience);
  if (audience.length > maxAudience) add("audience", `audience holds more than ${maxAudience} entries`);
  audience.forEach((a, i) => {
    if (!audienceEntry.test(a)) add("audience", `audience[${i}] must be a uid, group:<guid> or idp:<provider group>`);
  });
  add("deploymentUrl", checkField("deploymentUrl", f.deploymentUrl, 2000, false));
  add("agentRef", checkField("agentRef", f.agentRef, 320, false));
  if (f.auth !== "headers" && f.auth !== "chat-jwt" && f.auth !== "service-account") add("auth", "auth must be headers, chat-jwt or service-account");
  if (f.auth === "service-account" && f.agentRef.trim() === "") add("auth", "auth: a ServiceAccount token is for in-cluster Agents only; set agentRef (namespace/name)");
  add("tokenAudience", checkField("tokenAudience", f.tokenAudience, 512, false));
  const url = f.deploymentUrl.trim();
  const ref = f.agentRef.trim();
  if (url === "" && ref === "") add("deploymentUrl", "deploymentUrl is required (or agentRef, naming an in-cluster Agent as namespace/name)");
  else if (url !== "" && ref !== "") add("agentRef", "set either deploymentUrl or agentRef, not both");
  else if (ref !== "") {
    if (!agentRefPattern.test(ref)) add("agentRef", "agentRef must be namespace/name (lowercase letters, digits, '-' and '.')");
  } else {
    let u: URL | undefined;
    try {
      u = new URL(url);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== "http:" && u.protocol !== "https:") || u.host === "") add("deploymentUrl", "deploymentUrl must be an absolute http(s) URL");
    else if (u.username || u.password) add("deploymentUrl", "deploymentUrl must not hold credentials: configure headers instead");
  }
  add("headers", parseHeaders(f.headers).error);
  add("inputPrice", priceError("inputPrice", f.inputPrice));
  add("outputPrice", priceError("outputPrice", f.outputPrice));
  return errs;
}

export interface ActionForm {
  name: string;
  displayName: string;
  executionText: string;
  description: string;
  /** The Parameters JSON Schema as typed. */
  parameters: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** ValidateParameters: an error naming the field, or undefined when the server would accept it. */
export function validateParameters(text: string): string | undefined {
  if (text.trim() === "") return "parameters is required";
  let schema: Json;
  try {
    schema = JSON.parse(text) as Json;
  } catch (e) {
    return `parameters is not valid JSON (${e instanceof Error ? e.message : "syntax error"})`;
  }
  if (!isObject(schema)) return "parameters must be a JSON object";
  if (schema.type !== "object") return 'parameters.type must be "object"';
  if (!("properties" in schema)) return "parameters.properties is required";
  const props = schema.properties;
  if (!isObject(props) || Object.values(props).some((p) => !(isObject(p) || p === null))) {
    return "parameters.properties must be an object whose values are objects";
  }
  for (const k of Object.keys(props).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const field = `parameters.properties.${k}`;
    const p = props[k];
    const t = isObject(p) ? p.type : undefined;
    if (t === undefined || t === null || t === "") return `${field}.type is required`;
    if (typeof t !== "string" && !Array.isArray(t)) return `${field}.type must be a string or an array of strings`;
    const d = isObject(p) ? p.description : undefined;
    if (typeof d !== "string" || d.trim() === "") return `${field}.description is required`;
  }
  if ("required" in schema && schema.required !== null) {
    const req = schema.required;
    if (!Array.isArray(req) || req.some((n) => typeof n !== "string")) return "parameters.required must be an array of property names";
    for (let i = 0; i < req.length; i++) {
      const n = req[i] as string;
      if (!Object.prototype.hasOwnProperty.call(props, n)) return `parameters.required[${i}] names "${n}", which is not in parameters.properties`;
    }
  }
  return undefined;
}

/** Every error of a frontend action form, first per field. */
export function validateAction(f: ActionForm): FieldError[] {
  const errs: FieldError[] = [];
  const add = (field: string, message: string | undefined) => {
    if (message && !errs.some((e) => e.field === field)) errs.push({ field, message });
  };
  if (!agentName.test(f.name)) add("name", "name must be 1-64 letters, digits, _ or -");
  add("displayName", checkField("displayName", f.displayName, 100, true));
  add("executionText", checkField("executionText", f.executionText, 500, false));
  add("description", checkField("description", f.description, 4000, true));
  add("parameters", validateParameters(f.parameters));
  return errs;
}

/** The error for a new agent's id (kind "agent") or a new frontend action's name (kind "action")
 * that is already in the loaded list: saving would replace that one (the PUT creates or replaces). */
export function takenError(kind: "agent" | "action", id: string, existing: readonly string[]): string | undefined {
  if (id === "" || !existing.includes(id)) return undefined;
  return kind === "agent"
    ? "an agent with this id exists: choose another id"
    : "an action with this name exists: choose another name";
}

/** The form field a server error message is about ("parameters.properties.x… is required" →
 * "parameters"), or undefined when it names none of `fields`. */
export function fieldOfMessage(message: string, fields: readonly string[]): string | undefined {
  const head = message.split(/[\s:]/, 1)[0] ?? "";
  const root = head.split(/[.[]/, 1)[0] ?? "";
  return fields.includes(root) ? root : undefined;
}

/** The admin forms' field labels by the API's field names. */
export const fieldLabels: Readonly<Record<string, string>> = {
  agentId: "Agent ID",
  provider: "Provider",
  name: "Name",
  icon: "Icon",
  greeting: "Greeting",
  introductoryMessage: "Introductory Message",
  suggestedMessages: "Suggested messages",
  deploymentUrl: "Deployment URL",
  agentRef: "In-cluster Agent",
  headers: "Headers",
  approvers: "Approvers",
  audience: "Who may use it",
  auth: "Who is asking",
  tokenAudience: "Token audience",
  prices: "Prices",
  inputPrice: "Input price",
  outputPrice: "Output price",
  displayName: "Display Name",
  executionText: "Execution Text",
  description: "Description",
  parameters: "Parameters",
};

/** An error sentence in the form's words: the API's field names (agentId, deploymentUrl,
 * suggestedMessages[2], parameters.properties.city.type) become the labels the admin sees
 * ("Agent ID", "Deployment URL", "Suggested message 3", "Parameters: properties.city.type"). */
export function forPeople(message: string): string {
  const lead = /^([A-Za-z]+)(\[(\d+)\])?([.:]?)(\S*)/.exec(message);
  let out = message;
  if (lead && fieldLabels[lead[1]!]) {
    const label = fieldLabels[lead[1]!]!;
    const rest = message.slice(lead[0].length);
    const sep = lead[4] ?? "";
    const path = lead[5] ?? "";
    if (lead[2]) out = `${label.replace(/s$/, "")} ${Number(lead[3]) + 1}${sep === "." ? `: ${path}` : sep + path}${rest}`;
    else if (sep === ".") out = `${label}: ${path}${rest}`;
    else out = `${label}${sep}${path}${rest}`;
  }
  // Other fields named inside the sentence ("… (or agentRef, naming …)"); camelCase names are
  // never English words, so they are replaced wherever they stand.
  return out.replace(/\b(agentId|agentRef|deploymentUrl|introductoryMessage|suggestedMessages|displayName|executionText)\b/g, (k) => fieldLabels[k] ?? k);
}
