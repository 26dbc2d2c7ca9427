/**
 * The Chat namespace (import { Chat } from "@agentry/chat-sdk"): functions over a default
 * ChatClient, the model classes, request builders, listeners and constants. Names follow the
 * commercial SDK the specification mirrors (docs/chat-sdk.md).
 */
import { ChatClient } from "./client";
import { setDefaultClient } from "./registry";

const client = new ChatClient();
setDefaultClient(client);

/** The ChatClient behind the namespace's functions. */
export const getClient = (): ChatClient => client;

export const init: ChatClient["init"] = (appId, settings) => client.init(appId, settings);
export const login: ChatClient["login"] = (uidOrAuthToken, authKey) => client.login(uidOrAuthToken, authKey);
export const logout: ChatClient["logout"] = () => client.logout();
export const getLoggedinUser: ChatClient["getLoggedinUser"] = () => client.getLoggedinUser();
export const getAuthToken: ChatClient["getAuthToken"] = () => client.getAuthToken();
export const connect: ChatClient["connect"] = () => client.connect();
export const disconnect: ChatClient["disconnect"] = () => client.disconnect();
export const getConnectionStatus: ChatClient["getConnectionStatus"] = () => client.getConnectionStatus();

export const createUser: ChatClient["createUser"] = (user, authKey) => client.createUser(user, authKey);
export const getUser: ChatClient["getUser"] = (uid) => client.getUser(uid);
export const setUserDeactivated: ChatClient["setUserDeactivated"] = (uid, deactivated) => client.setUserDeactivated(uid, deactivated);
export const setUserRole: ChatClient["setUserRole"] = (uid, role) => client.setUserRole(uid, role);
export const createInvitation: ChatClient["createInvitation"] = (req) => client.createInvitation(req);
export type { Invitation, InvitationRequest } from "./ops/users";

export const getGroup: ChatClient["getGroup"] = (guid) => client.getGroup(guid);
export const createGroup: ChatClient["createGroup"] = (group, members) => client.createGroup(group, members);
export const updateGroup: ChatClient["updateGroup"] = (group) => client.updateGroup(group);
export const joinGroup: ChatClient["joinGroup"] = (guid, type, password) => client.joinGroup(guid, type, password);
export const leaveGroup: ChatClient["leaveGroup"] = (guid) => client.leaveGroup(guid);
export const deleteGroup: ChatClient["deleteGroup"] = (guid) => client.deleteGroup(guid);
export const addMembersToGroup: ChatClient["addMembersToGroup"] = (guid, members, banned) => client.addMembersToGroup(guid, members, banned);
export const kickGroupMember: ChatClient["kickGroupMember"] = (guid, uid) => client.kickGroupMember(guid, uid);
export const banGroupMember: ChatClient["banGroupMember"] = (guid, uid) => client.banGroupMember(guid, uid);
export const unbanGroupMember: ChatClient["unbanGroupMember"] = (guid, uid) => client.unbanGroupMember(guid, uid);
export const updateGroupMemberScope: ChatClient["updateGroupMemberScope"] = (guid, uid, scope) => client.updateGroupMemberScope(guid, uid, scope);
export const transferGroupOwnership: ChatClient["transferGroupOwnership"] = (guid, uid) => client.transferGroupOwnership(guid, uid);

export const sendMessage: ChatClient["sendMessage"] = (m) => client.sendMessage(m);
export const sendMediaMessage: ChatClient["sendMediaMessage"] = (m) => client.sendMediaMessage(m);
export const sendCustomMessage: ChatClient["sendCustomMessage"] = (m) => client.sendCustomMessage(m);
export const editMessage: ChatClient["editMessage"] = (m) => client.editMessage(m);
export const deleteMessage: ChatClient["deleteMessage"] = (id) => client.deleteMessage(id);
export const getMessageDetails: ChatClient["getMessageDetails"] = (id) => client.getMessageDetails(id);
export const addReaction: ChatClient["addReaction"] = (id, reaction) => client.addReaction(id, reaction);
export const removeReaction: ChatClient["removeReaction"] = (id, reaction) => client.removeReaction(id, reaction);
export const markAsDelivered: ChatClient["markAsDelivered"] = (m) => client.markAsDelivered(m);
export const markAsRead: ChatClient["markAsRead"] = (m) => client.markAsRead(m);
export const markAsUnread: ChatClient["markAsUnread"] = (m) => client.markAsUnread(m);
export const startTyping: ChatClient["startTyping"] = (t) => client.startTyping(t);
export const endTyping: ChatClient["endTyping"] = (t) => client.endTyping(t);
export const getMessageReceipts: ChatClient["getMessageReceipts"] = (id) => client.getMessageReceipts(id);
export const flagMessage: ChatClient["flagMessage"] = (id, flag) => client.flagMessage(id, flag);
export const fetchMedia: ChatClient["fetchMedia"] = (url) => client.fetchMedia(url);

export const getUnreadMessageCountForUser: ChatClient["getUnreadMessageCountForUser"] = (uid) => client.getUnreadMessageCountForUser(uid);
export const getUnreadMessageCountForGroup: ChatClient["getUnreadMessageCountForGroup"] = (guid) => client.getUnreadMessageCountForGroup(guid);
export const getUnreadMessageCountForAllUsers: ChatClient["getUnreadMessageCountForAllUsers"] = () => client.getUnreadMessageCountForAllUsers();
export const getUnreadMessageCountForAllGroups: ChatClient["getUnreadMessageCountForAllGroups"] = () => client.getUnreadMessageCountForAllGroups();

export const getAgentProfile: ChatClient["getAgentProfile"] = (agentId) => client.getAgentProfile(agentId);
export const retryAgentRun: ChatClient["retryAgentRun"] = (messageId) => client.retryAgentRun(messageId);
export const sendActionResult: ChatClient["sendActionResult"] = (runId, toolCallId, result) => client.sendActionResult(runId, toolCallId, result);
export const getApproval: ChatClient["getApproval"] = (id) => client.getApproval(id);
export const decideApproval: ChatClient["decideApproval"] = (id, decision) => client.decideApproval(id, decision);
export const isAIEnabled: ChatClient["isAIEnabled"] = () => client.isAIEnabled();
export const getSmartReplies: ChatClient["getSmartReplies"] = (id, type) => client.getSmartReplies(id, type);
export const getConversationStarter: ChatClient["getConversationStarter"] = (id, type) => client.getConversationStarter(id, type);
export const translateMessage: ChatClient["translateMessage"] = (id, language) => client.translateMessage(id, language);

export const getAgentConfigs: ChatClient["getAgentConfigs"] = () => client.getAgentConfigs();
export const getAgentUsage: ChatClient["getAgentUsage"] = () => client.getAgentUsage();
export const saveAgentConfig: ChatClient["saveAgentConfig"] = (agentId, config) => client.saveAgentConfig(agentId, config);
export const deleteAgentConfig: ChatClient["deleteAgentConfig"] = (agentId) => client.deleteAgentConfig(agentId);
export const setAgentEnabled: ChatClient["setAgentEnabled"] = (agentId, enabled) => client.setAgentEnabled(agentId, enabled);
export const followAgentRuns: ChatClient["followAgentRuns"] = (conversationId) => client.followAgentRuns(conversationId);
export const testAgentConnection: ChatClient["testAgentConnection"] = (agentId) => client.testAgentConnection(agentId);
export const importAgentConfig: ChatClient["importAgentConfig"] = (agentId) => client.importAgentConfig(agentId);
export const getFrontendActions: ChatClient["getFrontendActions"] = (agentId) => client.getFrontendActions(agentId);
export const saveFrontendAction: ChatClient["saveFrontendAction"] = (agentId, name, action) => client.saveFrontendAction(agentId, name, action);
export const deleteFrontendAction: ChatClient["deleteFrontendAction"] = (agentId, name) => client.deleteFrontendAction(agentId, name);

export const addMessageListener: ChatClient["addMessageListener"] = (id, l) => client.addMessageListener(id, l);
export const removeMessageListener: ChatClient["removeMessageListener"] = (id) => client.removeMessageListener(id);
export const addGroupListener: ChatClient["addGroupListener"] = (id, l) => client.addGroupListener(id, l);
export const removeGroupListener: ChatClient["removeGroupListener"] = (id) => client.removeGroupListener(id);
export const addConnectionListener: ChatClient["addConnectionListener"] = (id, l) => client.addConnectionListener(id, l);
export const removeConnectionListener: ChatClient["removeConnectionListener"] = (id) => client.removeConnectionListener(id);
export const addAgentListener: ChatClient["addAgentListener"] = (id, l) => client.addAgentListener(id, l);
export const removeAgentListener: ChatClient["removeAgentListener"] = (id) => client.removeAgentListener(id);

export { ChatClient } from "./client";
export { ChatException, SDK_ERROR } from "./exception";
export { updateMessageWithReactionInfo } from "./helpers";
export { AgentListener, ConnectionListener, GroupListener, MessageListener } from "./listeners";
export type {
  AgentListenerCallbacks,
  ConnectionListenerCallbacks,
  GroupListenerCallbacks,
  MessageListenerCallbacks,
} from "./listeners";
export { Action } from "./models/action";
export { AgenticMessage, type AgentReasoning, type ToolCall, type ToolResult } from "./models/agentic";
export type { ActionResult, AgentEvent, AgentProfile, AGUIEvent, Approval, ApprovalDecision, ApprovalStatus } from "./models/agent";
export type { AgentAuth, AgentConfig, AgentConfigWrite, AgentImport, AgentProvider, ConnectionTest, FrontendAction, FrontendActionWrite } from "./models/agent";
export type { AgentCapabilities, AgentPrices, AgentUsage, AgentUsageReport, UsageTotals } from "./models/agent";
export { Conversation } from "./models/conversation";
export { Group } from "./models/group";
export { Attachment, BaseMessage, CustomMessage, MediaMessage, TextMessage, type ModerationStatus } from "./models/message";
export { Reaction, ReactionCount, ReactionEvent } from "./models/reaction";
export { MessageReceipt, TypingIndicator } from "./models/receipt";
export { GroupMember, User, type UserKind } from "./models/user";
export { ConversationsRequest, ConversationsRequestBuilder } from "./requests/conversations";
export { GroupsRequest, GroupsRequestBuilder } from "./requests/groups";
export { MessagesRequest, MessagesRequestBuilder } from "./requests/messages";
export { ReactionsRequest, ReactionsRequestBuilder } from "./requests/reactions";
export {
  BannedMembersRequestBuilder,
  GroupMembersRequest,
  GroupMembersRequestBuilder,
  UsersRequest,
  UsersRequestBuilder,
} from "./requests/users";
export type { AppSettings } from "./session";
export type { WebSocketCtor } from "./socket";
export type { JSONObject, JSONValue } from "./wire";
export {
  ACTION_TYPE,
  AGENTIC_TYPE,
  CATEGORY_ACTION,
  CATEGORY_AGENTIC,
  CATEGORY_CUSTOM,
  CATEGORY_MESSAGE,
  CONNECTION_STATUS,
  GROUP_MEMBER_SCOPE,
  GROUP_TYPE,
  MESSAGE_CATEGORY,
  MESSAGE_TYPE,
  RECEIPT_TYPE,
  RECEIVER_TYPE,
  type ActionType,
  type ConnectionStatus,
  type GroupMemberScope,
  type GroupType,
  type MediaType,
  type ReceiptType,
  type ReceiverType,
} from "./constants";
