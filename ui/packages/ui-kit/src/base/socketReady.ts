import { useCallback, useEffect, useRef, useState } from "react";
import { Chat } from "@agentry/chat-sdk";

/** How long a first load waits for a connecting socket before it goes ahead without it. */
export const READY_WAIT_MS = 2000;

function status(): Chat.ConnectionStatus | undefined {
  try {
    return Chat.getConnectionStatus();
  } catch {
    return undefined; // before Chat.init or login
  }
}

/** Whether the SDK's socket is ready now (false before Chat.init or login). */
export function socketReady(): boolean {
  return status() === Chat.CONNECTION_STATUS.CONNECTED;
}

export interface ReadyGate {
  /** The first load may run: the socket is ready, is not connecting, or did not get ready in time. */
  open: boolean;
  /** Call when the socket is ready: opens the gate, and is true once if the list loaded before
   * the socket was ready and must load again (a session's first socket starts after its ready
   * frame with nothing replayed, so what changed between the load and then was never sent). */
  ready(): boolean;
}

let gateIds = 0;

/** Holds a list's first load back while the socket connects, so that one load made after it is
 * ready sees every change (rather than a load at mount and a second one at ready). The gate
 * watches the connection itself: the list's own listener may be registered after the socket
 * got ready, and must not make the first load wait for the timeout. */
export function useReadyGate(waitMs = READY_WAIT_MS): ReadyGate {
  const [open, setOpen] = useState(() => status() !== Chat.CONNECTION_STATUS.CONNECTING);
  const openRef = useRef(open);
  const loadedBeforeReady = useRef(open && !socketReady());
  useEffect(() => {
    if (open) return;
    const go = () => {
      if (openRef.current) return;
      loadedBeforeReady.current = !socketReady();
      openRef.current = true;
      setOpen(true);
    };
    // Ready (or stopped connecting) between the first render and now.
    if (status() !== Chat.CONNECTION_STATUS.CONNECTING) {
      go();
      return;
    }
    const id = `agentry-ready-gate-${++gateIds}`;
    try {
      Chat.addConnectionListener(id, { onConnected: go, onDisconnected: go, onConnectionError: go });
    } catch {
      // before Chat.init: the timer opens the gate
    }
    const t = setTimeout(go, waitMs);
    return () => {
      clearTimeout(t);
      try {
        Chat.removeConnectionListener(id);
      } catch {
        // logged out in between
      }
    };
  }, [open, waitMs]);
  const ready = useCallback(() => {
    const again = openRef.current && loadedBeforeReady.current;
    loadedBeforeReady.current = false;
    openRef.current = true;
    setOpen(true);
    return again;
  }, []);
  return { open, ready };
}
