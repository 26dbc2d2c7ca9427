// The agent configuration routes (/chat/v1/agents…): admins call them with their bearer token.
import { authToken } from "./session";

export type Provider = "ag-ui" | "mastra";

export interface AgentConfig {
  agentId: string;
  provider: Provider;
  name: string;
  icon?: string;
  greeting?: string;
  introductoryMessage?: string;
  suggestedMessages: string[];
  deploymentUrl?: string;
  agentRef?: string;
  hasHeaders: boolean;
  enabled: boolean;
  /** Who approves the tool calls the agent stops for (uids, group:<guid>:admins|moderators). */
  approvers?: string[];
}

/** PUT /agents/{id}: headers only when typed (absent keeps the stored ones). */
export interface AgentWrite {
  provider: Provider;
  name: string;
  icon: string;
  greeting: string;
  introductoryMessage: string;
  suggestedMessages: string[];
  deploymentUrl: string;
  agentRef: string;
  enabled: boolean;
  approvers: string[];
  headers?: Record<string, string>;
}

export interface FrontendAction {
  agentId: string;
  name: string;
  displayName: string;
  executionText?: string;
  description: string;
  parameters: unknown;
}

export interface ConnectionTest {
  ok: boolean;
  status: number;
  contentType: string;
  firstEvents: string[] | null;
  error?: string;
}

/** A failed call: the service's code and message (the message names the field). */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

let base = "/chat/v1";

export function setApiBase(chatPath: string): void {
  base = chatPath.replace(/\/+$/, "");
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  const token = authToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  } catch {
    throw new ApiError("ERR_NETWORK", "The chat service cannot be reached.", 0);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    throw new ApiError(
      typeof err?.code === "string" ? err.code : `HTTP_${res.status}`,
      typeof err?.message === "string" ? err.message : `The service answered ${res.status}.`,
      res.status,
    );
  }
  return json as T;
}

const enc = encodeURIComponent;

export const adminApi = {
  listAgents: async (): Promise<AgentConfig[]> => (await call<{ items: AgentConfig[] | null }>("GET", "/agents")).items ?? [],
  putAgent: (id: string, a: AgentWrite): Promise<AgentConfig> => call("PUT", `/agents/${enc(id)}`, a),
  deleteAgent: (id: string): Promise<void> => call("DELETE", `/agents/${enc(id)}`),
  setEnabled: (id: string, enabled: boolean): Promise<AgentConfig> => call("POST", `/agents/${enc(id)}/${enabled ? "enable" : "disable"}`),
  testAgent: (id: string): Promise<ConnectionTest> => call("POST", `/agents/${enc(id)}/test`),
  listActions: async (id: string): Promise<FrontendAction[]> => (await call<{ items: FrontendAction[] | null }>("GET", `/agents/${enc(id)}/actions`)).items ?? [],
  putAction: (id: string, name: string, a: Omit<FrontendAction, "agentId" | "name">): Promise<FrontendAction> =>
    call("PUT", `/agents/${enc(id)}/actions/${enc(name)}`, { name, ...a }),
  deleteAction: (id: string, name: string): Promise<void> => call("DELETE", `/agents/${enc(id)}/actions/${enc(name)}`),
};
