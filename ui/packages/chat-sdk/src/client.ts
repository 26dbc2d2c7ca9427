/**
 * ChatClient: one session of the SDK. The Chat namespace drives a default one; create more
 * (tests, a second account) with new ChatClient().
 */
import type { ConnectionStatus, GroupMemberScope, GroupType, ReceiverType } from "./constants";
import { ChatException } from "./exception";
import type {
  AgentListenerCallbacks,
  ConnectionListenerCallbacks,
  GroupListenerCallbacks,
  MessageListenerCallbacks,
} from "./listeners";
import type { ActionResult, AgentConfig, AgentConfigWrite, AgentImport, AgentProfile, AgentUsageReport, Approval, ApprovalDecision, ConnectionTest, FrontendAction, FrontendActionWrite } from "./models/agent";
import type { Group } from "./models/group";
import type { BaseMessage, CustomMessage, MediaMessage, TextMessage } from "./models/message";
import type { MessageReceipt, TypingIndicator } from "./models/receipt";
import type { GroupMember, User } from "./models/user";
import * as agents from "./ops/agents";
import * as conversations from "./ops/conversations";
import * as groups from "./ops/groups";
import * as messages from "./ops/messages";
import * as users from "./ops/users";
import { register } from "./registry";
import { Session, type AppSettings } from "./session";

/** Runs f, turning whatever it throws (synchronously too) into a rejected ChatException. */
function run<T>(f: () => Promise<T> | T): Promise<T> {
  return Promise.resolve()
    .then(f)
    .catch((err: unknown) => {
      throw ChatException.from(err);
    });
}

export class ChatClient {
  private readonly s: Session;

  constructor() {
    this.s = new Session();
    register(this, this.s);
  }

  // Set-up and session.
  init(appId: string, settings: AppSettings): Promise<boolean> { return run(() => this.s.init(appId, settings)); }
  /** login(uid, authKey): development login with the Auth Key; login(authToken): a token minted
   * by your server with the REST API key. Opens the WebSocket. */
  login(uidOrAuthToken: string, authKey?: string): Promise<User> { return run(() => this.s.login(uidOrAuthToken, authKey)); }
  logout(): Promise<void> { return run(() => this.s.logout()); }
  getLoggedinUser(): Promise<User | null> { return run(() => this.s.user ?? null); }
  /** The session's bearer token (the one login received or was given), or undefined. */
  getAuthToken(): string | undefined { return this.s.user ? this.s.token : undefined; }
  /** Reopens the WebSocket after disconnect(), resuming after the last event received. */
  connect(): void { this.s.connect(); }
  /** Closes the WebSocket until connect() (events meanwhile are replayed then). */
  disconnect(): void { this.s.disconnect(); }
  getConnectionStatus(): ConnectionStatus { return this.s.connectionStatus(); }

  // Users.
  createUser(user: User, authKey: string): Promise<User> { return run(() => users.createUser(this.s, user, authKey)); }
  getUser(uid: string): Promise<User> { return run(() => users.getUser(this.s, uid)); }
  /** Admins: deactivates a person (their sessions end at once) or reactivates them. */
  setUserDeactivated(uid: string, deactivated: boolean): Promise<User> { return run(() => users.setUserDeactivated(this.s, uid, deactivated)); }
  /** Admins: makes a person an admin ("admin") or a member (""). */
  setUserRole(uid: string, role: string): Promise<User> { return run(() => users.setUserRole(this.s, uid, role)); }
  /** Admins: an invitation link's code for a person to set up their own sign-in (a password). */
  createInvitation(req: users.InvitationRequest): Promise<users.Invitation> { return run(() => users.createInvitation(this.s, req)); }

  // Groups and membership.
  getGroup(guid: string): Promise<Group> { return run(() => groups.getGroup(this.s, guid)); }
  createGroup(group: Group, members?: readonly GroupMember[]): Promise<Group> { return run(() => groups.createGroup(this.s, group, members)); }
  updateGroup(group: Group): Promise<Group> { return run(() => groups.updateGroup(this.s, group)); }
  joinGroup(guid: string, type?: GroupType, password?: string): Promise<Group> { return run(() => groups.joinGroup(this.s, guid, type, password)); }
  leaveGroup(guid: string): Promise<boolean> { return run(() => groups.leaveGroup(this.s, guid)); }
  deleteGroup(guid: string): Promise<boolean> { return run(() => groups.deleteGroup(this.s, guid)); }
  addMembersToGroup(guid: string, members: readonly GroupMember[], bannedUids?: readonly string[]): Promise<Record<string, "success" | string>> {
    return run(() => groups.addMembersToGroup(this.s, guid, members, bannedUids));
  }
  kickGroupMember(guid: string, uid: string): Promise<boolean> { return run(() => groups.kickGroupMember(this.s, guid, uid)); }
  banGroupMember(guid: string, uid: string): Promise<boolean> { return run(() => groups.banGroupMember(this.s, guid, uid)); }
  unbanGroupMember(guid: string, uid: string): Promise<boolean> { return run(() => groups.unbanGroupMember(this.s, guid, uid)); }
  updateGroupMemberScope(guid: string, uid: string, scope: GroupMemberScope): Promise<boolean> {
    return run(() => groups.updateGroupMemberScope(this.s, guid, uid, scope));
  }
  transferGroupOwnership(guid: string, uid: string): Promise<boolean> { return run(() => groups.transferGroupOwnership(this.s, guid, uid)); }

  // Messages.
  sendMessage(message: TextMessage): Promise<TextMessage> { return run(() => messages.sendMessage(this.s, message)); }
  sendMediaMessage(message: MediaMessage): Promise<MediaMessage> { return run(() => messages.sendMediaMessage(this.s, message)); }
  sendCustomMessage(message: CustomMessage): Promise<CustomMessage> { return run(() => messages.sendCustomMessage(this.s, message)); }
  editMessage(message: BaseMessage): Promise<BaseMessage> { return run(() => messages.editMessage(this.s, message)); }
  deleteMessage(id: number): Promise<BaseMessage> { return run(() => messages.deleteMessage(this.s, id)); }
  getMessageDetails(id: number): Promise<BaseMessage> { return run(() => messages.getMessageDetails(this.s, id)); }
  addReaction(id: number, reaction: string): Promise<BaseMessage> { return run(() => messages.addReaction(this.s, id, reaction)); }
  removeReaction(id: number, reaction: string): Promise<BaseMessage> { return run(() => messages.removeReaction(this.s, id, reaction)); }
  /** Every message up to this one counts as delivered to the user. */
  markAsDelivered(message: BaseMessage | number): Promise<void> { return run(() => messages.mark(this.s, message, "delivered")); }
  /** Every message up to this one counts as read (and delivered). */
  markAsRead(message: BaseMessage | number): Promise<void> { return run(() => messages.mark(this.s, message, "read")); }
  /** Moves the user's read watermark back to just before this message. */
  markAsUnread(message: BaseMessage | number): Promise<void> { return run(() => messages.mark(this.s, message, "unread")); }
  startTyping(indicator: TypingIndicator): void { messages.typing(this.s, indicator, true); }
  endTyping(indicator: TypingIndicator): void { messages.typing(this.s, indicator, false); }
  getMessageReceipts(id: number): Promise<MessageReceipt[]> { return run(() => messages.getMessageReceipts(this.s, id)); }
  flagMessage(id: number, flag: { reason: string; remark?: string }): Promise<void> { return run(() => messages.flagMessage(this.s, id, flag)); }
  /** A media message's file (its URL needs the session's token). */
  fetchMedia(url: string): Promise<Blob> { return run(() => messages.fetchMedia(this.s, url)); }

  // Conversations.
  getUnreadMessageCountForUser(uid: string): Promise<Record<string, number>> { return run(() => conversations.getUnreadMessageCountForUser(this.s, uid)); }
  getUnreadMessageCountForGroup(guid: string): Promise<Record<string, number>> { return run(() => conversations.getUnreadMessageCountForGroup(this.s, guid)); }
  getUnreadMessageCountForAllUsers(): Promise<Record<string, number>> { return run(() => conversations.getUnreadMessageCountForAllUsers(this.s)); }
  getUnreadMessageCountForAllGroups(): Promise<Record<string, number>> { return run(() => conversations.getUnreadMessageCountForAllGroups(this.s)); }

  // Agents and AI.
  getAgentProfile(agentId: string): Promise<AgentProfile> { return run(() => agents.getAgentProfile(this.s, agentId)); }
  /** Try again after a failed run: asks the agent of the agent_error message messageId again over
   * the conversation as it is (the question is not sent twice). Resolves to the new run's id. */
  retryAgentRun(messageId: number): Promise<string> { return run(() => agents.retryAgentRun(this.s, messageId)); }
  sendActionResult(runId: string, toolCallId: string, result: ActionResult): Promise<BaseMessage> {
    return run(() => agents.sendActionResult(this.s, runId, toolCallId, result));
  }
  /** The approval request with this id (approvers, requester and conversation members). */
  getApproval(id: string): Promise<Approval> { return run(() => agents.getApproval(this.s, id)); }
  /** Approves or declines a tool call an agent stopped for (approvers only; the first decision wins). */
  decideApproval(id: string, decision: ApprovalDecision): Promise<Approval> { return run(() => agents.decideApproval(this.s, id, decision)); }
  isAIEnabled(): Promise<boolean> { return run(() => agents.isAIEnabled(this.s)); }
  getSmartReplies(receiverId: string, receiverType: ReceiverType): Promise<string[]> {
    return run(() => agents.getSmartReplies(this.s, receiverId, receiverType));
  }
  getConversationStarter(receiverId: string, receiverType: ReceiverType): Promise<string[]> {
    return run(() => agents.getConversationStarter(this.s, receiverId, receiverType));
  }
  translateMessage(id: number, language: string): Promise<string> { return run(() => agents.translateMessage(this.s, id, language)); }

  // Agent configurations and frontend actions (admins).
  getAgentConfigs(): Promise<AgentConfig[]> { return run(() => agents.getAgentConfigs(this.s)); }
  /** Each agent's runs, tokens and cost today (since 00:00 UTC) and over the last 7 days (admins). */
  getAgentUsage(): Promise<AgentUsageReport> { return run(() => agents.getAgentUsage(this.s)); }
  /** Creates or replaces the agent's configuration (PUT). */
  saveAgentConfig(agentId: string, config: AgentConfigWrite): Promise<AgentConfig> { return run(() => agents.saveAgentConfig(this.s, agentId, config)); }
  /** Deletes the agent's configuration and its frontend actions. */
  deleteAgentConfig(agentId: string): Promise<void> { return run(() => agents.deleteAgentConfig(this.s, agentId)); }
  setAgentEnabled(agentId: string, enabled: boolean): Promise<AgentConfig> { return run(() => agents.setAgentEnabled(this.s, agentId, enabled)); }
  /** Calls the agent once and reports what came back. */
  testAgentConnection(agentId: string): Promise<ConnectionTest> { return run(() => agents.testAgentConnection(this.s, agentId)); }
  importAgentConfig(agentId: string): Promise<AgentImport> { return run(() => agents.importAgentConfig(this.s, agentId)); }
  getFrontendActions(agentId: string): Promise<FrontendAction[]> { return run(() => agents.getFrontendActions(this.s, agentId)); }
  /** Creates or replaces the agent's frontend action with this name (PUT). */
  saveFrontendAction(agentId: string, name: string, action: FrontendActionWrite): Promise<FrontendAction> {
    return run(() => agents.saveFrontendAction(this.s, agentId, name, action));
  }
  deleteFrontendAction(agentId: string, name: string): Promise<void> { return run(() => agents.deleteFrontendAction(this.s, agentId, name)); }

  // Listeners: id-keyed; adding an id again replaces its listener.
  addMessageListener(id: string, listener: MessageListenerCallbacks): void { this.s.listeners.message.set(id, listener); }
  removeMessageListener(id: string): void { this.s.listeners.message.delete(id); }
  addGroupListener(id: string, listener: GroupListenerCallbacks): void { this.s.listeners.group.set(id, listener); }
  removeGroupListener(id: string): void { this.s.listeners.group.delete(id); }
  addConnectionListener(id: string, listener: ConnectionListenerCallbacks): void { this.s.listeners.connection.set(id, listener); }
  removeConnectionListener(id: string): void { this.s.listeners.connection.delete(id); }
  addAgentListener(id: string, listener: AgentListenerCallbacks): void { this.s.listeners.agent.set(id, listener); }
  removeAgentListener(id: string): void { this.s.listeners.agent.delete(id); }

  /**
   * Follows a conversation's agent runs across reloads and reconnections: the run in flight
   * (if any) is asked for now and after every (re)connection, and its events so far reach the
   * agent listeners before the live ones, so an answer that was streaming continues where it
   * was. A message that starts again (TEXT_MESSAGE_START of a known messageId) is built anew.
   * Returns the function that stops following.
   */
  followAgentRuns(conversationId: string): () => void {
    const runs = this.s.agentRuns;
    runs.set(conversationId, (runs.get(conversationId) ?? 0) + 1);
    this.s.realtime?.replayAgentRun(conversationId);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (runs.get(conversationId) ?? 1) - 1;
      if (n > 0) runs.set(conversationId, n);
      else runs.delete(conversationId);
    };
  }
}
