// Whether the chat service is reachable: the browser's online state and the SDK's socket.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useState } from "react";

export type Connection = "online" | "offline" | "connecting";

function current(): Connection {
  if (typeof navigator !== "undefined" && !navigator.onLine) return "offline";
  try {
    const s = Chat.getConnectionStatus();
    return s === Chat.CONNECTION_STATUS.CONNECTED ? "online" : s === Chat.CONNECTION_STATUS.CONNECTING ? "connecting" : "offline";
  } catch {
    return "connecting";
  }
}

/** The connection as it changes. The socket reconnects by itself; "online" again is the moment
 * to send what waited. */
export function useConnection(): Connection {
  const [state, setState] = useState<Connection>(current);
  useEffect(() => {
    const id = `agentry-web-connection-${Math.random().toString(36).slice(2)}`;
    const update = () => setState(current());
    Chat.addConnectionListener(id, new Chat.ConnectionListener({
      onConnected: update,
      inConnecting: update,
      onDisconnected: update,
      onConnectionError: update,
    }));
    window.addEventListener("online", update);
    window.addEventListener("offline", update);
    update();
    return () => {
      Chat.removeConnectionListener(id);
      window.removeEventListener("online", update);
      window.removeEventListener("offline", update);
    };
  }, []);
  return state;
}
