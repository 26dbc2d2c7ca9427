import type { ReceiverType } from "../constants";
import type { ActionResult, AgentConfig, AgentConfigWrite, AgentImport, AgentProfile, AgentUsageReport, Approval, ApprovalDecision, ConnectionTest, FrontendAction, FrontendActionWrite } from "../models/agent";
import { toApproval } from "../models/approval";
import type { BaseMessage } from "../models/message";
import type { Session } from "../session";
import type { JSONObject, WireMessage } from "../wire";

const enc = encodeURIComponent;

export async function getAgentProfile(s: Session, agentId: string): Promise<AgentProfile> {
  const p = await s.http.json<AgentProfile>("GET", `/agents/${enc(agentId)}/profile`);
  return { ...p, suggestedMessages: p.suggestedMessages ?? [] };
}

/** Posts a frontend action's result (or error) for a run's tool call; the run continues. */
export async function sendActionResult(s: Session, runId: string, toolCallId: string, result: ActionResult): Promise<BaseMessage> {
  const body = "error" in result ? { error: result.error } : { result: result.result };
  const w = await s.http.json<WireMessage>("POST", `/agent-runs/${enc(runId)}/actions/${enc(toolCallId)}`, { body });
  return s.message(w);
}

/** Asks the agent of a failed run again: messageId is its agent_error message. Resolves to the
 * new run's id; the answer arrives as any run's. */
export async function retryAgentRun(s: Session, messageId: number): Promise<string> {
  const w = await s.http.json<{ runId: string }>("POST", `/messages/${messageId}/retry`);
  return w.runId;
}

/** The approval request with this id (its approvers, requester and conversation members). */
export async function getApproval(s: Session, id: string): Promise<Approval> {
  const w = await s.http.json<JSONObject>("GET", `/approvals/${enc(id)}`);
  return toApproval(w);
}

/** Approves or declines a tool call an agent stopped for; the first decision wins. */
export async function decideApproval(s: Session, id: string, decision: ApprovalDecision): Promise<Approval> {
  const body: JSONObject = { approved: decision.approved };
  if (decision.reason) body["reason"] = decision.reason;
  const w = await s.http.json<JSONObject>("POST", `/approvals/${enc(id)}/decision`, { body });
  return toApproval(w);
}

export async function isAIEnabled(s: Session): Promise<boolean> {
  return (await s.http.json<{ enabled: boolean }>("GET", "/ai")).enabled === true;
}

export async function getSmartReplies(s: Session, receiverId: string, receiverType: ReceiverType): Promise<string[]> {
  const r = await s.http.json<{ replies?: string[] }>("POST", "/ai/smart-replies", { body: { receiver: receiverId, receiverType } });
  return r.replies ?? [];
}

export async function getConversationStarter(s: Session, receiverId: string, receiverType: ReceiverType): Promise<string[]> {
  const r = await s.http.json<{ starters?: string[] }>("POST", "/ai/conversation-starters", { body: { receiver: receiverId, receiverType } });
  return r.starters ?? [];
}

export async function translateMessage(s: Session, id: number, language: string): Promise<string> {
  const r = await s.http.json<{ translatedText: string }>("POST", `/messages/${id}/translate`, { body: { language } });
  return r.translatedText;
}

// Agent configurations and their frontend actions (admins).
const agentPath = (agentId: string, rest = "") => `/agents/${enc(agentId)}${rest}`;
const actionPath = (agentId: string, name: string) => agentPath(agentId, `/actions/${enc(name)}`);

export async function getAgentConfigs(s: Session): Promise<AgentConfig[]> {
  return (await s.http.json<{ items: AgentConfig[] | null }>("GET", "/agents")).items ?? [];
}
/** Each agent's runs, tokens and cost today and over the last 7 days (admins). */
export function getAgentUsage(s: Session): Promise<AgentUsageReport> {
  return s.http.json("GET", "/agent-usage");
}
export function saveAgentConfig(s: Session, agentId: string, config: AgentConfigWrite): Promise<AgentConfig> {
  return s.http.json("PUT", agentPath(agentId), { body: config });
}
export async function deleteAgentConfig(s: Session, agentId: string): Promise<void> {
  await s.http.request("DELETE", agentPath(agentId));
}
export function setAgentEnabled(s: Session, agentId: string, enabled: boolean): Promise<AgentConfig> {
  return s.http.json("POST", agentPath(agentId, enabled ? "/enable" : "/disable"));
}
export function testAgentConnection(s: Session, agentId: string): Promise<ConnectionTest> {
  return s.http.json("POST", agentPath(agentId, "/test"));
}
/** Fills the agent's empty display fields and adds its frontend actions from what the agent says of itself. */
export function importAgentConfig(s: Session, agentId: string): Promise<AgentImport> {
  return s.http.json("POST", agentPath(agentId, "/import"));
}
export async function getFrontendActions(s: Session, agentId: string): Promise<FrontendAction[]> {
  return (await s.http.json<{ items: FrontendAction[] | null }>("GET", agentPath(agentId, "/actions"))).items ?? [];
}
export function saveFrontendAction(s: Session, agentId: string, name: string, action: FrontendActionWrite): Promise<FrontendAction> {
  return s.http.json("PUT", actionPath(agentId, name), { body: { name, ...action } });
}
export async function deleteFrontendAction(s: Session, agentId: string, name: string): Promise<void> {
  await s.http.request("DELETE", actionPath(agentId, name));
}
