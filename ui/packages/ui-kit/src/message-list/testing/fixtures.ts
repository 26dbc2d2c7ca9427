// Test fixtures of the message features: SDK objects and a fake listener registry over the
// mocked Chat namespace. Test files mock the SDK so its namespace can be spied on:
//
//   vi.mock("@agentry/chat-sdk", async (io) => (await import("../fakeChat")).spyableChatSDK(io));
import { Chat } from "@agentry/chat-sdk";
import { vi } from "vitest";

export function user(uid: string, name = uid, kind: Chat.UserKind = "user"): Chat.User {
  const u = new Chat.User(uid, name);
  u.setKind(kind);
  return u;
}

export const me = user("alice", "Alice");
export const bob = user("bob", "Bob");
export const chef = user("chef", "Chef", "agent");

export interface TextOptions {
  id?: number;
  sender?: Chat.User;
  receiverId?: string;
  receiverType?: Chat.ReceiverType;
  reactions?: Chat.ReactionCount[];
  parentMessageId?: number;
  deleted?: boolean;
}

export function text(body: string, o: TextOptions = {}): Chat.TextMessage {
  const sender = o.sender ?? bob;
  const m = new Chat.TextMessage(o.receiverId ?? (sender.getUid() === me.getUid() ? bob.getUid() : me.getUid()), body, o.receiverType ?? "user");
  m.setId(o.id ?? 10);
  m.setSender(sender);
  m.setSentAt(1_700_000_000);
  if (o.reactions) m.setReactions(o.reactions);
  if (o.parentMessageId) m.setParentMessageId(o.parentMessageId);
  if (o.deleted) m.setDeletedAt(1_700_000_100);
  m.setConversationId(o.receiverType === "group" ? `group_${o.receiverId}` : "user_alice_user_bob");
  return m;
}

export interface AgenticOptions {
  id?: number;
  type?: "assistant" | "tool_result" | "agent_error" | "approval_request" | "approval_decision";
  text?: string;
  runId?: string;
  agentMessageId?: string;
  executor?: string;
  awaiting?: string[];
  toolCalls?: { id: string; name: string; arguments: string; frontend?: boolean; displayName?: string; executionText?: string }[];
  data?: Record<string, Chat.JSONValue>;
  conversationId?: string;
}

export function agentic(o: AgenticOptions = {}): Chat.AgenticMessage {
  const m = new Chat.AgenticMessage(me.getUid(), "user", o.type ?? "assistant");
  m.setId(o.id ?? 100);
  m.setSender(chef);
  m.setSentAt(1_700_000_000);
  m.setConversationId(o.conversationId ?? "user_alice_user_chef");
  if (o.text !== undefined) m.setText(o.text);
  const data: Record<string, Chat.JSONValue> = { runId: o.runId ?? "run_1", agentId: "chef", ...o.data };
  if (o.agentMessageId) data["messageId"] = o.agentMessageId;
  if (o.executor) data["executor"] = o.executor;
  if (o.awaiting) data["awaitingActions"] = o.awaiting;
  if (o.toolCalls) data["toolCalls"] = o.toolCalls.map((c) => ({ frontend: false, ...c }));
  m.setData(data);
  return m;
}

/** Captures the SDK listeners the components add (by id), as the SDK keeps them. */
export function fakeListeners() {
  const agent = new Map<string, Chat.AgentListenerCallbacks>();
  const message = new Map<string, Chat.MessageListenerCallbacks>();
  vi.spyOn(Chat, "addAgentListener").mockImplementation((id, l) => void agent.set(id, l));
  vi.spyOn(Chat, "removeAgentListener").mockImplementation((id) => void agent.delete(id));
  const followed = new Map<string, number>();
  vi.spyOn(Chat, "followAgentRuns").mockImplementation((conversationId) => {
    followed.set(conversationId, (followed.get(conversationId) ?? 0) + 1);
    return () => void followed.set(conversationId, (followed.get(conversationId) ?? 1) - 1);
  });
  vi.spyOn(Chat, "addMessageListener").mockImplementation((id, l) => void message.set(id, l));
  vi.spyOn(Chat, "removeMessageListener").mockImplementation((id) => void message.delete(id));
  return {
    agent,
    message,
    /** How many mounted views follow each conversation's agent runs. */
    followed,
    /** An agent frame to every agent listener. */
    frame(event: Chat.AGUIEvent, runId = "run_1", conversationId = "user_alice_user_chef") {
      for (const l of [...agent.values()]) l.onAgentEvent?.({ conversationId, agentId: "chef", runId, event });
    },
    /** A live stored agentic message to every message listener. */
    stored(m: Chat.AgenticMessage) {
      for (const l of [...message.values()]) l.onAgenticMessageReceived?.(m);
    },
  };
}
