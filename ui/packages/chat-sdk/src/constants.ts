/** Constants of the Chat namespace, named as the commercial SDK names them. */

export const RECEIVER_TYPE = { USER: "user", GROUP: "group" } as const;
export type ReceiverType = (typeof RECEIVER_TYPE)[keyof typeof RECEIVER_TYPE];

export const GROUP_TYPE = { PUBLIC: "public", PRIVATE: "private", PASSWORD: "password" } as const;
export type GroupType = (typeof GROUP_TYPE)[keyof typeof GROUP_TYPE];

export const GROUP_MEMBER_SCOPE = { ADMIN: "admin", MODERATOR: "moderator", PARTICIPANT: "participant" } as const;
export type GroupMemberScope = (typeof GROUP_MEMBER_SCOPE)[keyof typeof GROUP_MEMBER_SCOPE];

export const MESSAGE_TYPE = {
  TEXT: "text",
  IMAGE: "image",
  VIDEO: "video",
  AUDIO: "audio",
  FILE: "file",
  CUSTOM: "custom",
} as const;
export type MediaType = "image" | "video" | "audio" | "file";

/** Agentic message types (category agentic): what an agent run leaves in a conversation. */
export const AGENTIC_TYPE = { ASSISTANT: "assistant", TOOL_RESULT: "tool_result", AGENT_ERROR: "agent_error" } as const;

export const CATEGORY_MESSAGE = "message";
export const CATEGORY_ACTION = "action";
export const CATEGORY_CUSTOM = "custom";
export const CATEGORY_AGENTIC = "agentic";
export const MESSAGE_CATEGORY = {
  MESSAGE: CATEGORY_MESSAGE,
  ACTION: CATEGORY_ACTION,
  CUSTOM: CATEGORY_CUSTOM,
  AGENTIC: CATEGORY_AGENTIC,
} as const;

/** Actions of membership action messages (Action.getAction()). */
export const ACTION_TYPE = {
  MEMBER_JOINED: "joined",
  MEMBER_LEFT: "left",
  MEMBER_KICKED: "kicked",
  MEMBER_BANNED: "banned",
  MEMBER_UNBANNED: "unbanned",
  MEMBER_ADDED: "added",
  MEMBER_SCOPE_CHANGED: "scopeChanged",
  OWNERSHIP_TRANSFERRED: "ownershipTransferred",
} as const;
export type ActionType = (typeof ACTION_TYPE)[keyof typeof ACTION_TYPE];

/** Receipt types (MessageReceipt.getReceiptType()). */
export const RECEIPT_TYPE = {
  DELIVERED: "delivered",
  READ: "read",
  DELIVERED_TO_ALL: "deliveredToAll",
  READ_BY_ALL: "readByAll",
  UNREAD: "unread",
} as const;
export type ReceiptType = (typeof RECEIPT_TYPE)[keyof typeof RECEIPT_TYPE];

/** Connection states (Chat.getConnectionStatus()). */
export const CONNECTION_STATUS = {
  CONNECTED: "connected",
  CONNECTING: "connecting",
  DISCONNECTED: "disconnected",
} as const;
export type ConnectionStatus = (typeof CONNECTION_STATUS)[keyof typeof CONNECTION_STATUS];
