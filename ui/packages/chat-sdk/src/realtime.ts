/**
 * Real time for one session: the socket's frames go through the duplicate filter into one
 * ordered queue, where the dispatcher turns them into listener calls.
 */
import type { BackoffOptions } from "./backoff";
import type { ConnectionStatus } from "./constants";
import { EventFilter } from "./dedupe";
import type { Directory } from "./directory";
import { Dispatcher } from "./dispatch";
import { gate, type Emitters, type Listeners } from "./listeners";
import type { AGUIEvent } from "./models/agent";
import { SerialQueue } from "./queue";
import { Socket, type WebSocketCtor } from "./socket";
import type { JSONObject, ServerFrame } from "./wire";

export interface RealtimeOptions {
  url: string;
  ctor: WebSocketCtor;
  token(): string | undefined;
  me(): string | undefined;
  directory: Directory;
  listeners: Listeners;
  backoff?: BackoffOptions;
  typingTimeoutMs?: number;
  /** The service refused the session's token (close 4001): the session is over. */
  refused?(): void;
  /** Conversations whose agent run in flight is asked for on every (re)connection. */
  agentRuns?(): Iterable<string>;
}

export class Realtime {
  readonly filter = new EventFilter();
  private readonly queue = new SerialQueue();
  private readonly dispatcher: Dispatcher;
  private readonly socket: Socket;
  private received = 0;
  private active = true;
  /** Connection listeners were told onDisconnected since the last onConnected: stop() does not
   * tell them twice (after a 4001, a 4009 or disconnect()). */
  private toldDown = false;
  /** The listeners, silent once this session stopped. */
  private readonly l: Emitters;
  private readonly onOnline = (): void => this.socket.wake();
  /** The replay parts received so far, applied once all came (a part lost drops them). */
  private replay: { runId: string; parts: number; next: number; events: JSONObject[] } | undefined;

  constructor(private readonly o: RealtimeOptions) {
    this.l = gate(o.listeners, () => this.active);
    this.dispatcher = new Dispatcher(
      { me: o.me, directory: o.directory, listeners: this.l, received: () => this.received },
      o.typingTimeoutMs,
    );
    const socketOpts: ConstructorParameters<typeof Socket>[0] = {
      url: o.url,
      ctor: o.ctor,
      token: o.token,
      resume: () => this.filter.lastPos,
      hooks: {
        frame: (f) => this.frame(f),
        status: (s) => this.onStatus(s),
        error: (e) => this.queue.push(() => this.l.connection.emit("onConnectionError", e)),
        refused: () => o.refused?.(),
      },
    };
    if (o.backoff) socketOpts.backoff = o.backoff;
    this.socket = new Socket(socketOpts);
  }

  get status(): ConnectionStatus { return this.socket.status; }

  start(): void {
    globalThis.addEventListener?.("online", this.onOnline);
    this.socket.start();
  }

  /** Stops the socket and tells connection listeners; queued events are dropped. */
  stop(): void {
    if (!this.active) return;
    this.active = false;
    globalThis.removeEventListener?.("online", this.onOnline);
    this.queue.clear();
    this.dispatcher.clear();
    this.socket.stop();
    if (!this.toldDown) this.o.listeners.connection.emit("onDisconnected");
    this.toldDown = true;
  }

  /** Closes the socket but keeps the position: start() resumes after the last event. */
  pause(): void {
    if (this.active) this.socket.stop();
  }

  /** Sends a typing frame; false when the socket is not ready (use REST then). */
  typing(conversationId: string, started: boolean): boolean { return this.socket.send({ type: "typing", conversationId, started }); }

  /** Asks for the conversation's agent run in flight (its events so far come as agent events,
   * then the live ones); false when the socket is not ready (it is asked again on connect). */
  replayAgentRun(conversationId: string): boolean { return this.socket.send({ type: "replay", conversationId }); }

  /** Resolves once every frame received so far has reached the listeners. */
  idle(): Promise<void> { return this.queue.idle(); }

  private onStatus(s: ConnectionStatus): void {
    const l = this.l.connection;
    // "connected" is told when the ready frame is handled, in order with the events.
    if (s === "connecting") this.queue.push(() => l.emit("inConnecting"));
    if (s === "disconnected")
      this.queue.push(() => {
        if (this.active) this.toldDown = true; // a stopped session's listeners hear nothing here
        l.emit("onDisconnected");
      });
  }

  private frame(f: ServerFrame): void {
    this.received++;
    const l = this.l;
    switch (f.type) {
      case "ready":
        if (this.filter.lastPos === undefined) this.filter.lastPos = f.pos;
        // Frames sent while this socket was away (a reload, another replica) are not replayed
        // with the events: the agent runs in flight are asked for again.
        for (const c of this.o.agentRuns?.() ?? []) this.replayAgentRun(c);
        this.queue.push(() => {
          this.toldDown = false;
          l.connection.emit("onConnected");
        });
        return;
      case "reset":
        this.filter.reset(f.pos);
        this.queue.push(() => {
          this.toldDown = false;
          l.connection.forEach((c) => {
            try {
              if (c.onReset) c.onReset();
              else c.onConnected?.();
            } catch (err) {
              console.error("chat-sdk: connection listener failed", err);
            }
          });
        });
        return;
      case "event": {
        if (!f.event || !this.filter.accept(f.event)) return;
        const recv = this.received;
        const ev = f.event;
        this.queue.push(() => this.dispatcher.handle(ev, recv));
        return;
      }
      case "agent.replay": {
        this.replayPart(f);
        return;
      }
      case "agent": {
        const e = { conversationId: f.conversationId, agentId: f.agentId, runId: f.runId, event: f.event as unknown as AGUIEvent };
        this.queue.push(() => l.agent.emit("onAgentEvent", e));
        return;
      }
      case "agents.changed": {
        const agentId = f.agentId;
        this.queue.push(() => l.agent.emit("onAgentsChanged", agentId));
        return;
      }
    }
  }

  /** Collects the parts of a replay; once all came, their events go to the agent listeners in
   * one queued task (one render: the answer so far appears whole). */
  private replayPart(f: Extract<ServerFrame, { type: "agent.replay" }>): void {
    if (f.part === 1) this.replay = { runId: f.runId, parts: f.parts, next: 1, events: [] };
    const r = this.replay;
    if (!r || r.runId !== f.runId || r.parts !== f.parts || r.next !== f.part) {
      this.replay = undefined; // a part went missing: better no replay than a gap in the text
      return;
    }
    r.next++;
    r.events.push(...f.events);
    if (f.part !== f.parts) return;
    this.replay = undefined;
    const l = this.l;
    const head = { conversationId: f.conversationId, agentId: f.agentId, runId: f.runId };
    this.queue.push(() => {
      for (const ev of r.events) l.agent.emit("onAgentEvent", { ...head, event: ev as unknown as AGUIEvent });
    });
  }
}
