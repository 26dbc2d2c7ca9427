import { Chat } from "@agentry/chat-sdk";

/** Whether the SDK's socket is ready now (false before Chat.init or login). A component that
 * loads before it is may miss changes made until it is, and loads again then. */
export function socketReady(): boolean {
  try {
    return Chat.getConnectionStatus() === Chat.CONNECTION_STATUS.CONNECTED;
  } catch {
    return false;
  }
}
