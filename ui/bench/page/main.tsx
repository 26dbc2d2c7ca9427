// The bench page (ui/bench/bench.mjs builds it minified, like an app, and serves it through
// test/browser/server.mjs): /?case=messages|groups|agent&token=…&peer=<uid>[&limit=N] mounts one
// component, not in StrictMode, and records in window.__bench:
//   t.script    performance.now() when this module starts (the bundle loaded and parsed)
//   t.init, t.login  after Chat.init, after Chat.login(token)
//   t.mount     just before root.render (after the conversation's user lookup, if any)
//   t.rendered  when the 30th message row ([data-message-id]) / group row ([role=option]) is
//               in the DOM (a MutationObserver: before that frame is painted)
// performance.now() counts from navigation start. case=agent mounts ChatMessageList with the
// agent user (isAgentChat) and offers window.__bench.stream(text): it sends text to the agent,
// then times every animation frame until the agent's stored answer replaced the live one.
import "@agentry/ui-kit/css-variables.css";
import "@agentry/ui-kit/styles.css";
import { Chat } from "@agentry/chat-sdk";
import { ChatGroups, ChatMessageEvents, ChatMessageList, MessageStatus } from "@agentry/ui-kit";
import type { ReactElement } from "react";
import { createRoot } from "react-dom/client";

interface StreamResult {
  /** performance.now() of: send, first token in the DOM, last token in the DOM, stored answer shown. */
  sent: number;
  first: number;
  last: number;
  stored: number;
  /** rAF timestamps from before the send until the stored answer was shown. */
  frames: number[];
  /** Long animation frames (PerformanceObserver "long-animation-frame", ≥ 50 ms) in that span:
   * how long the rendering part (rAF callbacks, style, layout, paint) and style + layout took,
   * and its scripts (those over 5 ms). */
  loaf: {
    start: number; duration: number; blocking: number; render: number; layout: number;
    scripts: { invoker: string; invokerType: string; duration: number }[];
  }[];
}

/** The fields of a PerformanceLongAnimationFrameTiming the bench reads (not in TS's DOM lib yet). */
interface LoAF {
  blockingDuration?: number;
  renderStart?: number;
  styleAndLayoutStart?: number;
  scripts?: { invoker: string; invokerType: string; duration: number }[];
}

interface Bench {
  t: { script?: number; init?: number; login?: number; mount?: number; rendered?: number };
  rows?: number;
  error?: string;
  stream?: (text: string, lastToken: string) => Promise<StreamResult>;
}

declare global {
  interface Window {
    __bench: Bench;
  }
}

const bench: Bench = (window.__bench = { t: { script: performance.now() } });
window.addEventListener("error", (e) => (bench.error ??= String(e.error?.stack ?? e.message)));
window.addEventListener("unhandledrejection", (e) => (bench.error ??= String((e.reason as Error)?.stack ?? e.reason)));

const rootEl = document.getElementById("root")!;
const root = createRoot(rootEl);

/** Marks t.rendered once `selector` matches `count` elements. */
function watchRows(selector: string, count: number) {
  const check = () => {
    const n = rootEl.querySelectorAll(selector).length;
    if (n >= count) {
      bench.t.rendered = performance.now();
      bench.rows = n;
      obs.disconnect();
    }
  };
  const obs = new MutationObserver(check);
  obs.observe(rootEl, { childList: true, subtree: true });
}

function mount(el: ReactElement) {
  bench.t.mount = performance.now();
  root.render(<div className="chat">{el}</div>);
}

function streamer(list: () => Element | null): Bench["stream"] {
  return async (text, lastToken) => {
    const frames: number[] = [];
    const loaf: StreamResult["loaf"] = [];
    let po: PerformanceObserver | undefined;
    try {
      po = new PerformanceObserver((l) => {
        for (const e of l.getEntries()) {
          const f = e as PerformanceEntry & LoAF;
          loaf.push({
            start: f.startTime, duration: f.duration, blocking: f.blockingDuration ?? 0,
            render: f.renderStart ? f.startTime + f.duration - f.renderStart : 0,
            layout: f.styleAndLayoutStart ? f.startTime + f.duration - f.styleAndLayoutStart : 0,
            scripts: (f.scripts ?? []).map((x) => ({ invoker: x.invoker, invokerType: x.invokerType, duration: Math.round(x.duration) })),
          });
        }
      });
      po.observe({ type: "long-animation-frame", buffered: false });
    } catch {
      po = undefined; // no LoAF API: the rAF times alone
    }
    let stop = false;
    const tick = (t: number) => {
      frames.push(t);
      if (!stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    // Let a few frames pass so the first interval is a real one.
    await new Promise((r) => setTimeout(r, 100));

    const r = { sent: 0, first: 0, last: 0, stored: 0 };
    const done = new Promise<void>((resolve) => {
      const obs = new MutationObserver(() => {
        const now = performance.now();
        const el = list();
        if (!el) return;
        const live = el.querySelector(".chat-agent-live");
        if (!r.first && live && (live.textContent ?? "").includes("tok")) r.first = now;
        if (!r.last && live && (live.textContent ?? "").includes(lastToken)) r.last = now;
        if (!r.stored) {
          const rows = el.querySelectorAll("[data-message-id]");
          const lastRow = rows[rows.length - 1];
          if (!live && lastRow && (lastRow.textContent ?? "").includes(lastToken)) {
            r.stored = now;
            if (!r.last) r.last = now;
            obs.disconnect();
            resolve();
          }
        }
      });
      obs.observe(rootEl, { childList: true, subtree: true, characterData: true });
    });
    r.sent = performance.now();
    const sent = await Chat.sendMessage(new Chat.TextMessage(agentUid, text, "user"));
    ChatMessageEvents.ccMessageSent.next({ message: sent, status: MessageStatus.success });
    await done;
    // One more frame: the one that paints the stored answer.
    await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
    stop = true;
    po?.disconnect();
    return { ...r, frames, loaf };
  };
}

let agentUid = "";

async function main() {
  const q = new URLSearchParams(location.search);
  const which = q.get("case");
  const peer = q.get("peer") ?? "";
  await Chat.init(q.get("app") ?? "test", { host: location.origin });
  bench.t.init = performance.now();
  await Chat.login(q.get("token")!);
  bench.t.login = performance.now();
  switch (which) {
    case "messages": {
      const user = await Chat.getUser(peer);
      watchRows("[data-message-id]", Number(q.get("rows") ?? 30));
      const limit = Number(q.get("limit") ?? 0);
      mount(<ChatMessageList user={user} {...(limit ? { messagesRequestBuilder: new Chat.MessagesRequestBuilder().setLimit(limit) } : {})} />);
      break;
    }
    case "groups": {
      watchRows('[role="option"]', Number(q.get("rows") ?? 30));
      mount(
        <div style={{ width: 380, height: "100%" }}>
          <ChatGroups />
        </div>,
      );
      break;
    }
    case "agent": {
      const agent = await Chat.getUser(peer);
      agentUid = agent.getUid();
      bench.stream = streamer(() => rootEl.querySelector(".chat-message-list"));
      mount(<ChatMessageList user={agent} isAgentChat loadLastAgentConversation={false} />);
      bench.t.rendered = performance.now();
      break;
    }
    default:
      throw new Error(`unknown case ${which}`);
  }
}

main().catch((e) => (bench.error = String((e as Error)?.stack ?? e)));
