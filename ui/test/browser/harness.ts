// Helpers for the browser tests (vitest project "browser"): Debian's chromium through
// playwright-core, the page server, cases, recorded events, axe and screenshots.
//
//   const b = useBrowser();                       // one chromium + page server per test file
//   test("…", async () => {
//     const page = await b.newPage();
//     await openCase(page, "smoke", { greeting: "Hi" });
//     await page.getByRole("button").click();
//     expect((await waitForEvent(page, "onClick")).args[0]).toBe(1);
//     expect(await axe(page)).toEqual([]);
//     await screenshot(page, "smoke/clicked");
//   });
//
// With a real agentry process (ui/test/agentry.mjs), start it in a beforeAll declared before
// useBrowser and proxy to it; cases then use ctx.host (the page's origin) as Chat.init's host:
//
//   let chat: ChatProcess;
//   beforeAll(async () => { chat = await startChat(); });
//   afterAll(() => chat?.stop());
//   const b = useBrowser({ target: () => chat.base });
//
// b.server.setTarget(null) takes the service "down" for the page (502, WebSockets refused),
// setTarget(chat.base) brings it back; b.server.dropConnections() is a network blip.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { startChat, type ChatProcess } from "../agentry.mjs";
import type { RecordedEvent } from "./page/case";
import { startServer, type PageServer } from "./server.mjs";

export type { RecordedEvent } from "./page/case";
export type { PageServer } from "./server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
export const artifactsDir = join(here, "artifacts");
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Headless Debian chromium (CHROMIUM_PATH overrides; HEADED=1 shows it). */
export function launchBrowser(): Promise<Browser> {
  const args = ["--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--no-default-browser-check"];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return chromium.launch({
    executablePath: chromiumPath,
    headless: !process.env.HEADED,
    args,
    timeout: 30_000,
  });
}

/** The page server (static page + proxy to `target`). */
export function startPageServer(target: string | null = null): Promise<PageServer> {
  return startServer({ target });
}

interface PageLog {
  errors: string[];
  console: string[];
}
const logs = new WeakMap<Page, PageLog>();

/** A fresh context (own storage) and page on the server's origin; collects page errors and
 * console output (pageErrors / consoleLog). */
export async function newPage(browser: Browser, server: PageServer | string, options: BrowserContextOptions = {}): Promise<Page> {
  const context: BrowserContext = await browser.newContext({
    baseURL: typeof server === "string" ? server : server.url,
    viewport: { width: 1024, height: 768 },
    deviceScaleFactor: 1,
    reducedMotion: "reduce",
    ...options,
  });
  await context.addInitScript(instrument);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const log: PageLog = { errors: [], console: [] };
  logs.set(page, log);
  page.on("pageerror", (e) => log.errors.push(String(e.stack ?? e)));
  page.on("console", (m) => {
    log.console.push(`[${m.type()}] ${m.text()}`);
    if (log.console.length > 500) log.console.shift();
  });
  page.on("close", () => void context.close().catch(() => {}));
  return page;
}

/** In the page, before any script: remembers every message the list highlighted (a jump's
 * highlight lasts 2.5 s, which a busy machine may let pass before a test looks), as
 * "<id> <text>", and counts the fetches in flight (settled). */
function instrument(): void {
  const w = window as unknown as { __highlighted: string[]; __inflight: number };
  const seen: string[] = (w.__highlighted = []);
  const cls = "chat-message-list__message--highlighted";
  const note = (el: Element) => seen.push(`${el.getAttribute("data-message-id")} ${el.textContent}`);
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "attributes" && r.target instanceof Element && r.target.classList.contains(cls)) note(r.target);
      for (const n of r.addedNodes) if (n instanceof Element) n.querySelectorAll(`.${cls}`).forEach(note);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
  w.__inflight = 0;
  const fetch0 = window.fetch.bind(window);
  window.fetch = (...args) => {
    w.__inflight++;
    return fetch0(...args).finally(() => w.__inflight--);
  };
}

/** Waits until what the page set off has happened: two frames painted and no fetch in flight. */
export async function settled(page: Page): Promise<void> {
  await frames(page);
  await page.waitForFunction(() => (window as unknown as { __inflight: number }).__inflight === 0, undefined, { polling: 20 });
}

/** "<id> <text>" of each message the list has highlighted so far (instrument). */
export function highlighted(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __highlighted?: string[] }).__highlighted ?? []);
}

/** Waits until the page has received a response whose path matches (Resource Timing: the fetch has completed). */
export async function responded(page: Page, path: RegExp): Promise<void> {
  await page.waitForFunction((src) => performance.getEntriesByType("resource").some((e) => new RegExp(src).test(new URL(e.name).pathname)), path.source, { polling: 50 });
}

/** Waits until the page has painted n more frames (what a scroll or a click set off has rendered). */
export function frames(page: Page, n = 2): Promise<void> {
  return page.evaluate((k) => new Promise<void>((done) => {
    const next = (left: number) => (left ? requestAnimationFrame(() => next(left - 1)) : done());
    next(k);
  }), n);
}

export interface OpenCaseOptions {
  /** An auth token for the case (ctx.token). */
  token?: string;
  /** Chat service base for the case (ctx.host); default the page's origin (the proxy). */
  host?: string;
  /** Mount in React.StrictMode (default true: double effects must leave no duplicates). */
  strict?: boolean;
  /** How long to wait for the case to render (default 15 s). */
  timeout?: number;
}

/** Navigates to /?case=<name> and waits until the case has rendered; throws with the page's
 * error (and console) when the case is unknown or failed. Clears recorded events. */
export async function openCase(page: Page, name: string, params: Record<string, unknown> = {}, opts: OpenCaseOptions = {}): Promise<void> {
  const q = new URLSearchParams({ case: name });
  if (Object.keys(params).length) q.set("params", JSON.stringify(params));
  if (opts.token) q.set("token", opts.token);
  if (opts.host) q.set("host", opts.host);
  if (opts.strict === false) q.set("strict", "0");
  await page.goto(`/?${q}`);
  const timeout = opts.timeout ?? 15_000;
  try {
    await page.waitForFunction(() => window.__case?.ready || window.__case?.error, undefined, { timeout, polling: 20 });
  } catch {
    throw new Error(`case "${name}" did not render within ${timeout} ms${describeLog(page)}`);
  }
  const state = await page.evaluate(() => window.__case);
  if (state?.error) throw new Error(`case "${name}": ${state.error}${describeLog(page)}`);
}

function describeLog(page: Page): string {
  const log = logs.get(page);
  if (!log) return "";
  let s = "";
  if (log.errors.length) s += `\npage errors:\n  ${log.errors.join("\n  ")}`;
  if (log.console.length) s += `\nconsole (last 20):\n  ${log.console.slice(-20).join("\n  ")}`;
  return s;
}

/** Uncaught errors and unhandled rejections in the page so far. */
export function pageErrors(page: Page): string[] {
  return [...(logs.get(page)?.errors ?? [])];
}

/** The page's console output so far ("[type] text"). */
export function consoleLog(page: Page): string[] {
  return [...(logs.get(page)?.console ?? [])];
}

/** Callbacks recorded by `record(name)` in the case, oldest first; only `name`'s when given. */
export async function events(page: Page, name?: string): Promise<RecordedEvent[]> {
  const all = await page.evaluate(() => window.__events ?? []);
  return name ? all.filter((e) => e.name === name) : all;
}

/** Forgets the recorded events. */
export async function clearEvents(page: Page): Promise<void> {
  await page.evaluate(() => {
    window.__events.length = 0;
  });
}

/** Waits until `name` has been recorded `count` times (default 1) and returns the last of those. */
export async function waitForEvent(page: Page, name: string, opts: { count?: number; timeout?: number } = {}): Promise<RecordedEvent> {
  const count = opts.count ?? 1;
  try {
    await page.waitForFunction(
      ([n, c]) => (window.__events ?? []).filter((e) => e.name === n).length >= c,
      [name, count] as const,
      { timeout: opts.timeout ?? 10_000, polling: 20 },
    );
  } catch {
    const seen = (await events(page)).map((e) => e.name);
    throw new Error(`event ${name} not recorded ${count} time(s); recorded: [${seen.join(", ")}]${describeLog(page)}`);
  }
  return (await events(page, name))[count - 1]!;
}

/** Polls a Node-side condition (an API state, a process's output, ...) until it holds. */
export async function waitUntil<T>(
  fn: () => T | Promise<T>,
  opts: { timeout?: number; interval?: number; message?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeout ?? 10_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${opts.message ?? "condition"}${last ? `: ${String(last)}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, opts.interval ?? 50));
  }
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; html: string; failureSummary?: string }[];
}

const axeSource = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/**
 * Runs axe-core on the page (default: the whole document) and returns its violations (none:
 * []). `page-has-heading-one` is off by default: a component does not own the page's h1.
 * `rules` switches rules on or off ({ "color-contrast": { enabled: false } }).
 */
export async function axe(
  page: Page,
  opts: { include?: string; exclude?: string[]; rules?: Record<string, { enabled: boolean }> } = {},
): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: axeSource });
  const context = opts.include || opts.exclude ? { include: opts.include ? [opts.include] : undefined, exclude: opts.exclude } : undefined;
  const options = { rules: { "page-has-heading-one": { enabled: false }, ...opts.rules }, resultTypes: ["violations"] };
  return page.evaluate(
    async ([ctx, o]) => {
      const a = (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
      const r = await a.run(ctx ?? document, o);
      return r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        helpUrl: v.helpUrl,
        nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })),
      }));
    },
    [context, options] as const,
  );
}

/** A readable list of violations for an assertion message. */
/** No axe violations on the page (what names the view in the failure). */
export async function expectAccessible(page: Page, what = "the page"): Promise<void> {
  const v = await axe(page);
  expect(v, `${what}: axe violations\n${formatViolations(v)}`).toEqual([]);
}

/** No onError call recorded by the case and no uncaught error in the page. */
export async function expectNoErrors(page: Page): Promise<void> {
  expect((await events(page, "onError")).map((e) => e.args)).toEqual([]);
  expect(pageErrors(page)).toEqual([]);
}

export function formatViolations(v: AxeViolation[]): string {
  return v
    .map((x) => `${x.id} (${x.impact}): ${x.help}\n${x.nodes.map((n) => `    ${JSON.stringify(n.target)} ${n.html}`).join("\n")}`)
    .join("\n");
}

/** Saves a PNG under test/browser/artifacts/<name>.png (name may contain "/") and returns its
 * path; `selector` shoots one element, `fullPage` the whole scroll height. */
export async function screenshot(page: Page, name: string, opts: { selector?: string; fullPage?: boolean } = {}): Promise<string> {
  const path = join(artifactsDir, `${name.replace(/\.png$/, "")}.png`);
  mkdirSync(dirname(path), { recursive: true });
  if (opts.selector) await page.locator(opts.selector).first().screenshot({ path, animations: "disabled" });
  else await page.screenshot({ path, fullPage: opts.fullPage ?? false, animations: "disabled" });
  return path;
}

export interface BrowserFixture {
  readonly browser: Browser;
  readonly server: PageServer;
  /** A new page (own context) on the server; closed after the file's tests. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
}

/**
 * Registers beforeAll/afterAll hooks: one chromium and one page server for the test file.
 * `target` is the agentry base URL to proxy to, or a function called in beforeAll (so it can
 * read what an earlier beforeAll started).
 */
export function useBrowser(opts: { target?: string | null | (() => string | null) } = {}): BrowserFixture {
  let browser: Browser | undefined;
  let server: PageServer | undefined;
  const pages: Page[] = [];
  beforeAll(async () => {
    const target = typeof opts.target === "function" ? opts.target() : (opts.target ?? null);
    [browser, server] = await Promise.all([launchBrowser(), startPageServer(target)]);
  });
  afterAll(async () => {
    await Promise.all(pages.map((p) => p.context().close().catch(() => {})));
    await browser?.close();
    await server?.close();
  });
  return {
    get browser() {
      if (!browser) throw new Error("useBrowser: the browser starts in beforeAll");
      return browser;
    },
    get server() {
      if (!server) throw new Error("useBrowser: the server starts in beforeAll");
      return server;
    },
    async newPage(options) {
      const p = await newPage(this.browser, this.server, options);
      pages.push(p);
      return p;
    },
  };
}

/** A real `agentry chat` for the file (startChat's options) and the browser in front of it;
 * `chat` answers once the file's set-up has run. */
export function useChat(opts?: Parameters<typeof startChat>[0]): { chat: ChatProcess; b: BrowserFixture } {
  let proc: ChatProcess | undefined;
  beforeAll(async () => {
    proc = await startChat(opts);
  });
  afterAll(() => proc?.stop());
  const chat = new Proxy({} as ChatProcess, {
    get(_, key) {
      if (!proc) throw new Error("agentry chat starts in beforeAll");
      const v: unknown = Reflect.get(proc, key, proc);
      return typeof v === "function" ? v.bind(proc) : v;
    },
  });
  return { chat, b: useBrowser({ target: () => proc?.base ?? null }) };
}
