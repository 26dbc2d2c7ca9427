// What a case file sees: the context it is mounted with, `defineCase` for typing, and
// `record(name)`, which makes a callback that appends {name, args} to window.__events for the
// test to read (harness: events / waitForEvent).
import type { ReactElement } from "react";

export interface CaseContext {
  /** The case's name (its file name under cases/, without .tsx). */
  name: string;
  /** Base URL of the chat service for Chat.init's `host`: the page's own origin (the test
   * server proxies /chat/v1 and /api to the agentry process), unless the test passes `host`. */
  host: string;
  /** An auth token when the test logged a user in (openCase's `token`). */
  token?: string;
  /** The test's parameters for this case (openCase's `params`, JSON in the URL). */
  params: Record<string, unknown>;
}

/** A case: returns the element to mount (inside <div class="chat">), or a promise of it when
 * it needs set-up first (Chat.init, login, ...). */
export type CaseFactory = (ctx: CaseContext) => ReactElement | Promise<ReactElement>;

/** Identity, for the types: `export default defineCase(({ host }) => <X />)`. */
export const defineCase = (factory: CaseFactory): CaseFactory => factory;

export interface RecordedEvent {
  name: string;
  args: unknown[];
  /** performance.now() when recorded. */
  t: number;
}

declare global {
  interface Window {
    __events: RecordedEvent[];
    __errors: string[];
    __case?: { name: string; ready: boolean; error?: string };
  }
}

window.__events ??= [];
window.__errors ??= [];

/**
 * A callback that records its calls: `onItemClick={record("onItemClick")}`. Arguments are
 * stored as plain JSON-like data (class instances by their own fields, DOM nodes and React
 * events as short descriptions, functions by name). Pass `project` to store something else,
 * e.g. `record("onItemClick", (g) => [g.getGuid()])`.
 */
export function record<A extends unknown[]>(
  name: string,
  project?: (...args: A) => unknown[],
): (...args: A) => void {
  return (...args: A) => {
    const stored = project ? project(...args) : args;
    window.__events.push({ name, args: stored.map((a) => toPlain(a)), t: performance.now() });
  };
}

function toPlain(v: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (v === null || typeof v !== "object") {
    if (typeof v === "function") return `[Function ${v.name || "anonymous"}]`;
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "symbol") return v.toString();
    return v;
  }
  if (seen.has(v)) return "[Circular]";
  if (depth > 8) return "[…]";
  seen.add(v);
  try {
    if (v instanceof Date) return v.toISOString();
    if (v instanceof Error) return { name: v.name, message: v.message, ...plainFields(v, depth, seen) };
    if (typeof Node !== "undefined" && v instanceof Node) return describeNode(v);
    if ("nativeEvent" in v && "currentTarget" in v) {
      const e = v as unknown as { type: string; target: unknown };
      return { event: e.type, target: e.target instanceof Node ? describeNode(e.target) : null };
    }
    if (typeof Event !== "undefined" && v instanceof Event) {
      return { event: v.type, target: v.target instanceof Node ? describeNode(v.target) : null };
    }
    if (Array.isArray(v)) return v.map((x) => toPlain(x, depth + 1, seen));
    if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), toPlain(x, depth + 1, seen)]));
    if (v instanceof Set) return [...v].map((x) => toPlain(x, depth + 1, seen));
    const j = (v as { toJSON?: () => unknown }).toJSON;
    if (typeof j === "function") return toPlain(j.call(v), depth + 1, seen);
    return plainFields(v, depth, seen);
  } finally {
    seen.delete(v);
  }
}

function plainFields(v: object, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = toPlain(x, depth + 1, seen);
  return out;
}

function describeNode(n: Node): string {
  if (!(n instanceof Element)) return n.nodeName;
  const id = n.id ? `#${n.id}` : "";
  const cls = typeof n.className === "string" && n.className ? "." + n.className.trim().split(/\s+/).join(".") : "";
  return `<${n.tagName.toLowerCase()}${id}${cls}>`;
}
