// `npm run bench` (ui/), run by `make bench`: the chat SDK's and UI kit's numbers, printed as
// one markdown table with the goal beside each number (reported, not asserted).
//
//   1. Bundle size: an app entry importing { Chat } from @agentry/chat-sdk and
//      { ChatMessageList, ChatGroups } from @agentry/ui-kit, bundled by esbuild (minified, React
//      external) from the packages' dist/, gzip level 9; each package alone; the CSS.
//   2. Time to first render in chromium (playwright-core, /usr/bin/chromium, headless) against a
//      real `agentry chat`: ChatMessageList on a conversation of 40 messages and ChatGroups over
//      40 groups, until the 30th row (the first page) is in the DOM; from navigation start and
//      from the component's mount; a warm-up run, then RUNS runs each.
//   3. Frames while an agent streams 200 tokens: an AG-UI agent in this process (SSE, one
//      TEXT_MESSAGE_CONTENT per token, TOKEN_MS apart) configured on the chat service as an
//      http Deployment URL; ChatMessageList with the agent user (isAgentChat); requestAnimationFrame
//      times in the page from the first token in the DOM until the stored answer replaced the
//      live one; STREAM_RUNS runs, each a new user. Long animation frames (LoAF API) are logged
//      to stderr with their attribution (scripts against style/layout/paint).
//   4. Scrolling back through 1,000, 5,000 and 20,000 messages (SCROLL_LENGTHS) and forward
//      again: ChatMessageList with pages of 100, three views per step, each step waiting for
//      its page; long tasks (PerformanceObserver "longtask"), the most DOM nodes at any time,
//      and the JS heap after a forced collection (CDP) before and after. SCROLL_DEBUG=1 prints
//      each long task and long animation frame (with its scripts and forced layout),
//      SCROLL_PROFILE=1 a CPU profile's top self times (the page then built unminified).
//
// Needs the packages built (npm run build) and the agentry binary ($AGENTRY_BIN, default
// <repo>/bin/agentry). The bench page (bench/page) is built minified into a temporary directory,
// not into test/browser/dist, so browser tests running at the same time are not disturbed.
// The table goes to stdout, progress to stderr. Goals the issue does not name are the bench's
// own, marked "(set here)".
//
//   RUNS=10 STREAM_RUNS=3 TOKEN_MS=15 npm run bench
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { build as esbuild } from "esbuild";
import { chromium } from "playwright-core";
import { build as viteBuild } from "vite";
import { agentryBin, startChat } from "../test/agentry.mjs";
import { startServer } from "../test/browser/server.mjs";

const ui = fileURLToPath(new URL("..", import.meta.url));
const env = (name, def) => (process.env[name] ? Number(process.env[name]) : def);
const RUNS = env("RUNS", 10);
const STREAM_RUNS = env("STREAM_RUNS", 3);
const TOKENS = env("TOKENS", 200);
const TOKEN_MS = env("TOKEN_MS", 15);
const ROWS = 30; // the components' first page (the request builders' default limit)
const SEEDED = 40; // more than a page, so the first page is full
const FRAME_MS = 1000 / 60;
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const began = Date.now();
const loadAtStart = loadavg()[0];
const progress = (msg) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const cleanups = [];
const cleanup = async () => {
  while (cleanups.length) await cleanups.pop()().catch(() => {});
};
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));
process.on("SIGTERM", () => void cleanup().then(() => process.exit(143)));

const rows = []; // { measure, result, goal, ok }
const report = (measure, result, goal = "—", ok) => {
  rows.push({ measure, result, goal, verdict: ok === undefined ? "" : ok ? "met" : "NOT met" });
  progress(`${measure}: ${result}${goal !== "—" ? ` (goal ${goal}) ${ok ? "met" : "NOT met"}` : ""}`);
};

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const ms = (n) => `${Math.round(n)} ms`;
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  return s[lo] + (s[Math.ceil(i)] - s[lo]) * (i - lo);
}

// ---------------------------------------------------------------------------------------------
// 1. Bundle size

async function bundleSizes() {
  for (const pkg of ["chat-sdk", "ui-kit"]) {
    if (!existsSync(join(ui, "packages", pkg, "dist", "index.js"))) {
      throw new Error(`packages/${pkg}/dist is missing: run npm run build (ui/) first`);
    }
  }
  const reactExternal = ["react", "react-dom", "react/*", "react-dom/*"];
  const bundle = async (contents, external = []) => {
    const r = await esbuild({
      stdin: { contents, resolveDir: ui, loader: "js", sourcefile: "app.js" },
      bundle: true, minify: true, format: "esm", target: "es2022", platform: "browser",
      write: false, external: [...reactExternal, ...external], logLevel: "error",
    });
    const js = r.outputFiles[0].contents;
    return { min: js.length, gz: gzipSync(js, { level: 9 }).length };
  };
  const both = await bundle(`export { Chat } from "@agentry/chat-sdk"; export { ChatMessageList, ChatGroups } from "@agentry/ui-kit";`);
  const sdk = await bundle(`export { Chat } from "@agentry/chat-sdk";`);
  const kit = await bundle(`export { ChatMessageList, ChatGroups } from "@agentry/ui-kit";`, ["@agentry/chat-sdk"]);
  const cssSrc = ["css-variables.css", "styles.css"].map((f) => readFileSync(join(ui, "packages", "ui-kit", "dist", f), "utf8")).join("\n");
  const cssMin = (await esbuild({ stdin: { contents: cssSrc, loader: "css" }, minify: true, write: false, logLevel: "error" })).outputFiles[0].contents;
  const css = { min: cssMin.length, gz: gzipSync(cssMin, { level: 9 }).length };
  const GOAL = 80 * 1024;
  report("bundle: chat-sdk + ui-kit JS (`Chat`, `ChatMessageList`, `ChatGroups`; React external)", `${kb(both.gz)} min+gzip (${kb(both.min)} min)`, "≤ 80 KB", both.gz <= GOAL);
  report("bundle: @agentry/chat-sdk alone (`Chat`)", `${kb(sdk.gz)} min+gzip (${kb(sdk.min)} min)`);
  report("bundle: @agentry/ui-kit alone (both components; SDK and React external)", `${kb(kit.gz)} min+gzip (${kb(kit.min)} min)`);
  report("bundle: CSS (css-variables.css + styles.css, minified)", `${kb(css.gz)} min+gzip (${kb(css.min)} min)`);
  report("bundle: JS + CSS together", `${kb(both.gz + css.gz)} min+gzip`);
}

// ---------------------------------------------------------------------------------------------
// The synthetic AG-UI agent: POST a RunAgentInput and it streams RUN_STARTED,
// TEXT_MESSAGE_START, TOKENS deltas "tok0 ", "tok1 ", … (the i-th due TOKEN_MS·i after the
// first), TEXT_MESSAGE_END and RUN_FINISHED.

function startAgent() {
  const server = http.createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      let input;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400).end("not JSON");
        return;
      }
      const { threadId = "t", runId = "r" } = input;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.socket?.setNoDelay(true);
      const send = (ev) => res.write(`data: ${JSON.stringify(ev)}\n\n`);
      const messageId = `msg_${runId}`;
      send({ type: "RUN_STARTED", threadId, runId });
      send({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" });
      const start = performance.now();
      let i = 0;
      const next = () => {
        if (res.destroyed) return;
        send({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: `tok${i} ` });
        i++;
        if (i < TOKENS) {
          setTimeout(next, Math.max(0, start + i * TOKEN_MS - performance.now()));
          return;
        }
        send({ type: "TEXT_MESSAGE_END", messageId });
        send({ type: "RUN_FINISHED", threadId, runId });
        res.end();
      };
      next();
    });
  });
  return new Promise((ok) => {
    server.listen(0, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}/ag-ui`;
      ok({ url, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// 4. Scrolling back through a long conversation and forward again

const LENGTHS = (process.env.SCROLL_LENGTHS ?? "1000,5000,20000").split(",").map(Number);
const SCROLL_LIMIT = 100; // the service's largest page

/** Sends n messages between two new users: the first and the last alone (so they are the oldest
 * and the newest), the others 16 at a time. */
async function seedConversation(chat, n, tag) {
  await chat.createUser(`${tag}-a`, "Ada");
  await chat.createUser(`${tag}-b`, "Ben");
  const a = await chat.mintToken(`${tag}-a`);
  const b = await chat.mintToken(`${tag}-b`);
  const send = (i) => {
    const [from, to] = i % 3 ? [a, `${tag}-b`] : [b, `${tag}-a`];
    return chat.call("POST", "/messages", { receiver: to, receiverType: "user", text: `s ${i}: a line about the plan, long enough to wrap now and then on a narrow screen.` }, from);
  };
  await send(1);
  let next = 2;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < n) await send(next++);
  }));
  await send(n);
  return a;
}

async function scrolling(browser, server, chat) {
  for (const n of LENGTHS) {
    const started = Date.now();
    const token = await seedConversation(chat, n, `scroll${n}`);
    progress(`scroll: ${n} messages seeded in ${Math.round((Date.now() - started) / 1000)} s`);
    const { page, context } = await open(browser, server, { case: "messages", token, peer: `scroll${n}-b`, limit: String(SCROLL_LIMIT), rows: "1" },
      () => window.__bench?.t.rendered || window.__bench?.error);
    const cdp = await context.newCDPSession(page);
    const heap = async () => {
      await cdp.send("HeapProfiler.collectGarbage");
      return (await cdp.send("Runtime.getHeapUsage")).usedSize;
    };
    await page.waitForTimeout(500);
    const heapStart = await heap();
    if (process.env.SCROLL_PROFILE) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
      await cdp.send("Profiler.start");
    }
    const r = await page.evaluate(async ({ first, last }) => {
      const s = document.querySelector(".chat-message-list__list");
      const tasks = [];
      const po = new PerformanceObserver((l) => { for (const e of l.getEntries()) tasks.push({ at: e.startTime, d: e.duration }); });
      po.observe({ type: "longtask", buffered: false });
      const loafs = [];
      const lo = new PerformanceObserver((l) => {
        for (const e of l.getEntries()) {
          if (e.duration < 50) continue;
          loafs.push(`${Math.round(e.duration)}ms[layout ${Math.round(e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0)} scripts ${(e.scripts ?? []).map((x) => `${x.invoker}:${Math.round(x.duration)}(fl ${Math.round(x.forcedStyleAndLayoutDuration ?? 0)})`).join(",")}]`);
        }
      });
      try { lo.observe({ type: "long-animation-frame", buffered: false }); } catch { /* no LoAF */ }
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      const textOf = (el) => el?.querySelector(".chat-text-bubble__text")?.textContent?.split(":")[0];
      const rows = () => s.querySelectorAll("[data-message-id]");
      let nodes = 0;
      let atMost = "";
      const sample = () => {
        const k = document.getElementsByTagName("*").length;
        if (k > nodes) {
          nodes = k;
          atMost = `${rows().length} messages, ${s.querySelectorAll("*").length} in the list, ${document.querySelectorAll("svg *").length} svg`;
        }
      };
      const settle = async () => {
        await frame();
        for (let i = 0; i < 400 && s.getAttribute("aria-busy"); i++) await sleep(5);
        await frame();
        sample();
      };
      const t0 = performance.now();
      for (let i = 0; !(s.scrollTop <= 1 && textOf(rows()[0]) === first); i++) {
        if (i > 20000) throw new Error(`scrolling back stuck at ${textOf(rows()[0])}`);
        s.scrollTop = Math.max(0, s.scrollTop - s.clientHeight * 3);
        await settle();
      }
      const t1 = performance.now();
      for (let i = 0; !(s.scrollHeight - s.clientHeight - s.scrollTop <= 1 && textOf(rows()[rows().length - 1]) === last); i++) {
        if (i > 20000) throw new Error(`scrolling forward stuck at ${textOf(rows()[rows().length - 1])}`);
        s.scrollTop += s.clientHeight * 3;
        await settle();
      }
      const t2 = performance.now();
      await sleep(100);
      po.disconnect();
      const part = (a, b) => tasks.filter((t) => t.at >= a && t.at < b);
      const sum = (xs) => xs.reduce((x, t) => x + t.d, 0);
      const max = (xs) => xs.reduce((x, t) => Math.max(x, t.d), 0);
      return {
        back: { ms: t1 - t0, longest: max(part(t0, t1)), blocked: sum(part(t0, t1)) },
        fwd: { ms: t2 - t1, longest: max(part(t1, t2)), blocked: sum(part(t1, t2)) },
        nodes,
        atMost,
        debug: tasks.map((t) => `${Math.round(t.at - t0)}:${Math.round(t.d)}`).join(" ") + " | LoAF " + loafs.join(" "),
      };
    }, { first: "s 1", last: `s ${n}` });
    if (process.env.SCROLL_DEBUG) progress(`most nodes: ${r.nodes} (${r.atMost}); long tasks (ms after the start: duration): ${r.debug}`);
    if (process.env.SCROLL_PROFILE) {
      const { profile } = await cdp.send("Profiler.stop");
      const self = new Map();
      const byId = new Map(profile.nodes.map((nd) => [nd.id, nd]));
      const dt = profile.timeDeltas;
      profile.samples.forEach((id, i) => {
        const nd = byId.get(id);
        const name = `${nd.callFrame.functionName || "(anon)"} ${nd.callFrame.url.split("/").pop()}:${nd.callFrame.lineNumber}`;
        self.set(name, (self.get(name) ?? 0) + (dt[i] ?? 0) / 1000);
      });
      progress(`self time (ms): ${[...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${k} ${Math.round(v)}`).join("; ")}`);
    }
    const heapBack = await heap();
    await context.close();
    const mb = (x) => `${(x / 1048576).toFixed(1)} MB`;
    const pct = (p) => `${((100 * p.blocked) / p.ms).toFixed(1)} %`;
    const longest = Math.max(r.back.longest, r.fwd.longest);
    report(`scroll back through ${n.toLocaleString("en")} messages (pages of ${SCROLL_LIMIT}) and forward again: longest task`,
      `${ms(longest)} (back ${ms(r.back.longest)}, forward ${ms(r.fwd.longest)})`, "no task over 50 ms", longest <= 50);
    report(`… ${n.toLocaleString("en")} messages: share of the time blocked by long tasks`,
      `back ${pct(r.back)} of ${(r.back.ms / 1000).toFixed(1)} s, forward ${pct(r.fwd)} of ${(r.fwd.ms / 1000).toFixed(1)} s`);
    report(`… ${n.toLocaleString("en")} messages: DOM nodes (most at any time)`, `${r.nodes}`, "under 3,000", r.nodes < 3000);
    report(`… ${n.toLocaleString("en")} messages: JS heap after a collection, at the start → after back and forth`, `${mb(heapStart)} → ${mb(heapBack)}`,
      "flat whatever the length (≤ 1,000-message run + 5 MB, set here)", heapFlat(n, heapBack));
  }
}

let heapAt1000;
function heapFlat(n, used) {
  if (n === LENGTHS[0]) heapAt1000 = used;
  return heapAt1000 === undefined ? undefined : used <= heapAt1000 + 5 * 1048576;
}

// ---------------------------------------------------------------------------------------------
// The page, the browser

async function buildPage() {
  const outDir = mkdtempSync(join(tmpdir(), "agentry-ui-bench-"));
  cleanups.push(async () => rmSync(outDir, { recursive: true, force: true }));
  await viteBuild({
    configFile: false,
    root: join(ui, "bench", "page"),
    base: "/",
    plugins: [react()],
    logLevel: "warn",
    build: { outDir, emptyOutDir: true, minify: !process.env.SCROLL_PROFILE, target: "es2022", reportCompressedSize: false },
  });
  return outDir;
}

function launchBrowser() {
  const args = ["--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--no-default-browser-check"];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return chromium.launch({ executablePath: chromiumPath, headless: true, args, timeout: 30_000 });
}

/** A fresh context (no cache) and page; navigates to the bench page and waits for the case. */
async function open(browser, server, query, waitFor) {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1024, height: 768 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`/?${new URLSearchParams(query)}`, { waitUntil: "commit" });
  try {
    await page.waitForFunction(waitFor, undefined, { timeout: 20_000, polling: 50 });
  } catch (e) {
    const state = await page.evaluate(() => window.__bench).catch(() => undefined);
    await context.close();
    throw new Error(`bench page ${JSON.stringify(query.case)} did not render: ${JSON.stringify(state)} ${errors.join("\n")}`, { cause: e });
  }
  const state = await page.evaluate(() => window.__bench);
  if (state.error) {
    await context.close();
    throw new Error(`bench page ${query.case}: ${state.error}`);
  }
  return { page, context, state };
}

// ---------------------------------------------------------------------------------------------
// 2. Time to first render

async function firstRender(browser, server, chat) {
  progress(`seeding: ${SEEDED} messages between alice and bob, ${SEEDED} groups`);
  await chat.createUser("alice", "Alice");
  await chat.createUser("bob", "Bob");
  const alice = await chat.mintToken("alice");
  const bob = await chat.mintToken("bob");
  for (let i = 1; i <= SEEDED; i++) {
    const [from, to] = i % 2 ? [alice, "bob"] : [bob, "alice"];
    await chat.call("POST", "/messages", { receiver: to, receiverType: "user", text: `Message ${i}: a line of text about the plan for today, long enough to wrap now and then.` }, from);
  }
  for (let i = 1; i <= SEEDED; i++) {
    const guid = `bench-${String(i).padStart(2, "0")}`;
    await chat.call("POST", "/groups", { guid, name: `Bench group ${i}`, type: "public", members: i % 3 ? [] : [{ uid: "alice" }] }, bob);
  }

  const cases = [
    { name: "messages", label: `ChatMessageList, ${ROWS} of ${SEEDED} messages`, query: { case: "messages", token: alice, peer: "bob" }, request: "/chat/v1/users/bob/messages$" },
    { name: "groups", label: `ChatGroups, ${ROWS} of ${SEEDED} groups`, query: { case: "groups", token: alice }, request: "/chat/v1/groups$" },
  ];
  for (const c of cases) {
    const nav = [];
    const mount = [];
    const phase = { script: [], init: [], login: [], lookup: [], answered: [], render: [] };
    for (let run = 0; run <= RUNS; run++) {
      const { page, context, state } = await open(browser, server, { ...c.query, rows: String(ROWS) }, () => window.__bench?.t.rendered || window.__bench?.error);
      // When the first page's answer (GET …/messages or /groups) had arrived.
      const answered = await page.evaluate((re) => {
        const e = performance.getEntriesByType("resource").find((r) => new RegExp(re).test(new URL(r.name).pathname));
        return e?.responseEnd;
      }, c.request);
      await context.close();
      if (state.rows < ROWS) throw new Error(`${c.name}: ${state.rows} rows`);
      if (run === 0) continue; // warm-up: chromium's first page, the service's cold caches
      const t = state.t;
      nav.push(t.rendered);
      mount.push(t.rendered - t.mount);
      phase.script.push(t.script);
      phase.init.push(t.init - t.script);
      phase.login.push(t.login - t.init);
      phase.lookup.push(t.mount - t.login);
      if (answered === undefined) throw new Error(`${c.name}: no request matched ${c.request}`);
      phase.answered.push(answered - t.mount);
      phase.render.push(t.rendered - answered);
    }
    const p50 = (xs) => ms(quantile(xs, 0.5));
    const GOAL = 1000;
    report(`first render: ${c.label}, navigation start → ${ROWS}th row in the DOM`, `p50 ${ms(quantile(nav, 0.5))}, p95 ${ms(quantile(nav, 0.95))} (${RUNS} runs)`,
      "p50 ≤ 1,000 ms (set here)", quantile(nav, 0.5) <= GOAL);
    report(`first render: ${c.label}, component mount → ${ROWS}th row (its first page request + render)`,
      `p50 ${ms(quantile(mount, 0.5))}, p95 ${ms(quantile(mount, 0.95))}: the page's answer ${p50(phase.answered)} after the mount, ` +
        `then ${p50(phase.render)} to render (p50s). Before the mount (p50s): page + bundle ${p50(phase.script)}, ` +
        `Chat.init ${p50(phase.init)}, Chat.login ${p50(phase.login)}${c.name === "messages" ? `, Chat.getUser ${p50(phase.lookup)}` : ""}`);
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Frames while an agent streams

/**
 * The page's own work in a long animation frame: its scripts (the kit has no rAF callbacks, and
 * React schedules through MessagePort, so a FrameRequestCallback is the bench's frame counter, a
 * push) plus style and layout. A long frame with little work is time the page was not running:
 * on a loaded machine, the renderer waiting for a core.
 */
const work = (l) => l.scripts.filter((x) => x.invokerType !== "user-callback" || x.invoker !== "FrameRequestCallback").reduce((n, x) => n + x.duration, 0) + l.layout;

async function streaming(browser, server, chat) {
  const agent = await startAgent();
  cleanups.push(agent.close);
  await chat.call("PUT", "/agents/streamer", { agentId: "streamer", name: "Streamer", provider: "ag-ui", deploymentUrl: agent.url, enabled: true });
  const results = [];
  for (let run = 1; run <= STREAM_RUNS; run++) {
    const uid = `reader${run}`;
    await chat.createUser(uid, `Reader ${run}`);
    const token = await chat.mintToken(uid);
    const { page, context } = await open(browser, server, { case: "agent", token, peer: "streamer" },
      () => window.__bench?.error || document.querySelector('.chat-message-list [role="log"]'));
    // The empty conversation settled (welcome, profile fetch) before the clock starts.
    await page.waitForTimeout(300);
    const r = await page.evaluate(([last]) => window.__bench.stream("Stream me an answer, please", last), [`tok${TOKENS - 1}`]);
    await context.close();
    if (!r.first) throw new Error(`run ${run}: no token reached the page`);
    // Frames from the first token in the DOM until the frame after the stored answer replaced
    // the live one: each interval between consecutive rAF callbacks is one frame's length.
    const end = r.frames.find((t) => t >= r.stored) ?? r.frames[r.frames.length - 1];
    const intervals = [];
    for (let i = 1; i < r.frames.length; i++) {
      if (r.frames[i] > r.first && r.frames[i] <= end) intervals.push(r.frames[i] - r.frames[i - 1]);
    }
    const inStream = r.loaf.filter((l) => l.start + l.duration >= r.first && l.start <= end);
    // The send itself (the outgoing message, the "thinking" row), before the first token.
    const before = [];
    for (let i = 1; i < r.frames.length; i++) {
      if (r.frames[i] > r.sent && r.frames[i] <= r.first) before.push(r.frames[i] - r.frames[i - 1]);
    }
    results.push({
      sendLong: before.filter((d) => d > 50).length,
      sendWorst: Math.max(0, ...before),
      duration: r.last - r.first,
      firstAfterSend: r.first - r.sent,
      swap: r.stored - r.last,
      frames: intervals.length,
      // Over one 60 Hz frame, with 0.5 ms for timer jitter (headless intervals read 16.6–16.9 ms).
      over16: intervals.filter((d) => d > FRAME_MS + 0.5).length,
      over50: intervals.filter((d) => d > 50).length,
      dropped: intervals.reduce((n, d) => n + Math.max(0, Math.round(d / FRAME_MS) - 1), 0),
      worst: Math.max(...intervals),
      p95: quantile(intervals, 0.95),
      loaf: inStream.length,
      loafWork: inStream.filter((l) => work(l) >= 50).length,
    });
    for (const l of r.loaf) {
      progress(`  long animation frame at +${Math.round(l.start - r.first)} ms of the stream: ${Math.round(l.duration)} ms, ` +
        `of which work ${Math.round(work(l))} ms (style+layout ${Math.round(l.layout)} ms; scripts ${JSON.stringify(l.scripts.map((x) => [x.invoker, x.duration]))})`);
    }
    progress(`stream run ${run}: ${JSON.stringify(results.at(-1), (k, v) => (typeof v === "number" ? Math.round(v * 10) / 10 : v))}`);
  }
  const sum = (k) => results.reduce((n, r) => n + r[k], 0);
  const med = (k) => quantile(results.map((r) => r[k]), 0.5);
  const frames = sum("frames");
  const runs = `${STREAM_RUNS} run${STREAM_RUNS === 1 ? "" : "s"}`;
  report(`agent stream: ${TOKENS} tokens ${TOKEN_MS} ms apart, first → last token in the DOM`,
    `median ${ms(med("duration"))} (the agent sends them over ${ms((TOKENS - 1) * TOKEN_MS)}); send → first token ${ms(med("firstAfterSend"))}; last token → stored answer shown ${ms(med("swap"))}`);
  report("agent stream: long frames (> 50 ms), first token → stored answer painted",
    `${sum("over50")} of ${frames} frames (${runs}); worst frame ${ms(Math.max(...results.map((r) => r.worst)))}; long animation frames (LoAF API): ${sum("loaf")}, ${sum("loafWork")} of them with ≥ 50 ms of script or style/layout work, wall time (the rest: the page waiting for a core). ` +
      `Between the send and the first token: ${sum("sendLong")} long frame(s), worst ${ms(Math.max(...results.map((r) => r.sendWorst)))}`,
    "0 (set here)", sum("over50") === 0);
  report("agent stream: frames over 16.7 ms (a vsync missed at 60 Hz)",
    `${sum("over16")} of ${frames} frames (${((100 * sum("over16")) / frames).toFixed(1)}%), ${sum("dropped")} frames dropped in all; p95 frame ${ms(med("p95"))}`,
    "≤ 5% of frames (set here)", sum("over16") <= 0.05 * frames);
}

// ---------------------------------------------------------------------------------------------

async function main() {
  progress("bundle sizes (esbuild, minified, gzip -9)");
  await bundleSizes();
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: apt-get install chromium, or set CHROMIUM_PATH`);
  if (!existsSync(agentryBin())) throw new Error(`${agentryBin()} is missing: make build (repository root), or set AGENTRY_BIN`);
  progress("building the bench page (vite, minified) and starting agentry chat and chromium");
  // No per-user rate limit: the scroll section seeds tens of thousands of messages.
  const [root, chat, browser] = await Promise.all([buildPage(), startChat({ args: ["--rate-limit=0"] }), launchBrowser()]);
  cleanups.push(() => chat.stop());
  cleanups.push(() => browser.close());
  const server = await startServer({ root, target: chat.base });
  cleanups.push(() => server.close());
  await firstRender(browser, server, chat);
  await streaming(browser, server, chat);
  await scrolling(browser, server, chat);
  const chromiumVersion = browser.version();
  await cleanup();

  console.log(
    `\nUI kit benchmark: packages' dist bundled by esbuild; chromium ${chromiumVersion} headless (no GPU) on a minified page against a real agentry chat (SQLite), over loopback; ` +
      `${Math.round((Date.now() - began) / 1000)} s in all.\nTimings are from a shared ${cpus().length}-core machine (load average ${loadAtStart.toFixed(1)} at the start, ` +
      `${loadavg()[0].toFixed(1)} at the end): other work runs beside them, so they vary from run to run.\n`,
  );
  console.log("| measure | result | goal | |\n|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.measure} | ${r.result} | ${r.goal} | ${r.verdict} |`);
  console.log("\n(set here): the issue names no goal for this number; the bench proposes one.");
}

main().catch(async (e) => {
  console.error("bench:", e?.stack ?? e);
  await cleanup();
  process.exit(1);
});
