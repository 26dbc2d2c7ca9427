// The live side of agent chat for one conversation: agent frames (and, after a reload or a
// reconnection, a replay of the run in flight) feed the stream reducer; the
// stored agentic messages (live only) replace their streaming copies and start the frontend
// actions they await. One agent listener and one message listener per mounted instance
// (unique ids; strict mode's second effect replaces, never duplicates), removed on cleanup.
import { Chat } from "@agentry/chat-sdk";
import { useEffect, useId, useReducer, useRef, useState } from "react";
import { agentStreamReducer, emptyStream, type AgentStreamState, type AgentUIEvent } from "../agentStream";
import type { AgentActionHandler } from "../props";
import { runAwaitedActions } from "./actions";
import { rememberDisplayName } from "./conversation";

export interface AgentStreamOptions {
  /** The conversation (undefined: listen to nothing). */
  conversationId: string | undefined;
  me: string;
  actions: Readonly<Record<string, AgentActionHandler>> | undefined;
  onError(error: unknown): void;
}

export interface AgentStream {
  state: AgentStreamState;
  /** Runs whose failure already arrived as a stored agent_error message (shown by the list). */
  storedErrorRuns: ReadonlySet<string>;
}

export function useAgentStream({ conversationId, me, actions, onError }: AgentStreamOptions): AgentStream {
  const [state, dispatch] = useReducer(agentStreamReducer, emptyStream);
  const [storedErrorRuns, setStoredErrorRuns] = useState<ReadonlySet<string>>(() => new Set());
  const id = `ui-kit-agent-view${useId()}`;
  const latest = useRef({ me, actions, onError });
  latest.current = { me, actions, onError };

  useEffect(() => {
    if (!conversationId) return;
    Chat.addAgentListener(
      id,
      new Chat.AgentListener({
        onAgentEvent(e) {
          if (e.conversationId !== conversationId) return;
          dispatch({ type: "event", runId: e.runId, agentId: e.agentId, event: e.event as AgentUIEvent, at: Date.now() });
        },
      }),
    );
    Chat.addMessageListener(
      id,
      new Chat.MessageListener({
        onAgenticMessageReceived(m) {
          if (m.getConversationId() !== conversationId) return;
          const agentMessageId = m.getAgentMessageId();
          if (agentMessageId) dispatch({ type: "stored", messageId: agentMessageId });
          for (const c of m.getToolCalls()) {
            rememberDisplayName(c.id, c.displayName);
            dispatch({ type: "stored", messageId: `tool-${c.id}` });
          }
          const runId = m.getRunId();
          if (m.getType() === "agent_error" && runId) setStoredErrorRuns((s) => new Set(s).add(runId));
          const l = latest.current;
          void runAwaitedActions(m, l.me, l.actions, (err) => latest.current.onError(err));
        },
      }),
    );
    // The run in flight, when the page (re)opened mid-answer or the socket moved: its events so
    // far come first, then the live ones.
    const unfollow = Chat.followAgentRuns(conversationId);
    return () => {
      unfollow();
      Chat.removeAgentListener(id);
      Chat.removeMessageListener(id);
      dispatch({ type: "clear" });
    };
  }, [conversationId, id]);

  return { state, storedErrorRuns };
}
