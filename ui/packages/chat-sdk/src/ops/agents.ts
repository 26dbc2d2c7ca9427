import type { ReceiverType } from "../constants";
import type { ActionResult, AgentProfile } from "../models/agent";
import type { BaseMessage } from "../models/message";
import type { Session } from "../session";
import type { WireMessage } from "../wire";

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
