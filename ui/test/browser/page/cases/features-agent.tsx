// Agent chat on the real ChatMessageList: a conversation with an agent (params.agent, default
// "chef"), isAgentChat, loadLastAgentConversation (params, default true), a composer, and the
// show-recipe-card frontend action registered in agentActions: it renders a recipe card on the
// page, records its arguments ("action:show-recipe-card") and answers {shown: true, title}.
// params.paceMs: every socket frame reaches the SDK that long after the previous one (the
// scripted dev model answers in one burst, too fast to see an answer stream in).
import { Chat } from "@agentry/chat-sdk";
import { ChatMessageEvents, ChatMessageList, MessageStatus, type AgentActionHandler } from "@agentry/ui-kit";
import { useState, useSyncExternalStore, type FormEvent } from "react";
import { defineCase, record } from "../case";

interface Recipe {
  title: string;
  steps: string[];
}

// The recipe cards the action showed (a tiny store the action writes and the page reads).
let cards: Recipe[] = [];
const listeners = new Set<() => void>();
const cardStore = {
  subscribe(l: () => void) {
    listeners.add(l);
    return () => void listeners.delete(l);
  },
  get: () => cards,
  add(r: Recipe) {
    cards = [...cards, r];
    for (const l of listeners) l();
  },
};

const recordRun = record("action:show-recipe-card");
const showRecipeCard: AgentActionHandler = (args, call) => {
  const a = args as Partial<Recipe>;
  recordRun(args, call.id);
  if (typeof a.title !== "string" || !Array.isArray(a.steps)) throw new Error("a recipe needs a title and steps");
  cardStore.add({ title: a.title, steps: a.steps.map(String) });
  return { shown: true, title: a.title };
};

function RecipeCards() {
  const list = useSyncExternalStore(cardStore.subscribe, cardStore.get);
  return (
    <>
      {list.map((r, i) => (
        <section key={i} className="recipe-card" aria-label={`Recipe: ${r.title}`} style={{ border: "2px solid #6852d6", borderRadius: 12, padding: "8px 16px", margin: "8px 0" }}>
          <h2 style={{ margin: "4px 0", fontSize: 18 }}>{r.title}</h2>
          <ol style={{ margin: 0 }}>
            {r.steps.map((s, j) => (
              <li key={j}>{s}</li>
            ))}
          </ol>
        </section>
      ))}
    </>
  );
}

function Composer({ to }: { to: string }) {
  const [text, setText] = useState("");
  const send = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    const sent = await Chat.sendMessage(new Chat.TextMessage(to, text, "user"));
    setText("");
    ChatMessageEvents.ccMessageSent.next({ message: sent, status: MessageStatus.success });
  };
  return (
    <form onSubmit={(e) => void send(e)} style={{ display: "flex", gap: 8, padding: 8 }}>
      <label htmlFor="composer" style={{ position: "absolute", left: -9999 }}>
        Message
      </label>
      <input id="composer" value={text} onChange={(e) => setText(e.target.value)} style={{ flex: 1, padding: 8 }} />
      <button type="submit">Send</button>
    </form>
  );
}

function Panel({ agent, params }: { agent: Chat.User; params: Record<string, unknown> }) {
  return (
    <div style={{ flex: 1, minHeight: 0 }}>
      <ChatMessageList
        user={agent}
        isAgentChat
        loadLastAgentConversation={params.loadLastAgentConversation !== false}
        showSmartReplies={params.showSmartReplies === true}
        showConversationStarters={params.showConversationStarters === true}
        agentActions={{ "show-recipe-card": showRecipeCard }}
        onError={recordError}
      />
    </div>
  );
}

const recordError = record("onError", (e: Chat.ChatException) => [e.code, e.message]);

/** The browser's WebSocket, with incoming frames handed on one by one, paceMs apart, in order. */
function pacedWebSocket(paceMs: number): Chat.WebSocketCtor {
  return class PacedWebSocket extends WebSocket {
    private queue: Promise<void> = Promise.resolve();
    override set onmessage(h: ((this: WebSocket, ev: MessageEvent) => unknown) | null) {
      super.onmessage = h
        ? (ev: MessageEvent) => {
            this.queue = this.queue.then(() => new Promise<void>((done) => setTimeout(() => {
              h.call(this, ev);
              done();
            }, paceMs)));
          }
        : null;
    }
    override get onmessage() {
      return super.onmessage;
    }
  };
}

export default defineCase(async ({ host, token, params }) => {
  const pace = typeof params.paceMs === "number" ? params.paceMs : 0;
  await Chat.init("agentry-dev", pace ? { host, webSocket: pacedWebSocket(pace) } : { host });
  await Chat.login(token!);
  const agent = await Chat.getUser(typeof params.agent === "string" ? params.agent : "chef");
  // twice: two lists of the same conversation (the action must still run once).
  return (
    <div style={{ height: "calc(100vh - 16px)", display: "flex", gap: 16 }}>
      <div style={{ flex: 2, display: "flex", flexDirection: "column", minWidth: 0, border: "1px solid #ddd" }}>
        <h1 style={{ fontSize: 16, margin: 8 }}>Chat with {agent.getName()}</h1>
        <Panel agent={agent} params={params} />
        {params.twice === true ? <Panel agent={agent} params={params} /> : null}
        <Composer to={agent.getUid()} />
      </div>
      <aside aria-label="Recipe cards" style={{ flex: 1, padding: 8 }}>
        <RecipeCards />
      </aside>
    </div>
  );
});
