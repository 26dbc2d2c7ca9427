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
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build as esbuild } from "esbuild";
import { agentryBin, startChat } from "../test/agentry.mjs";
import { startServer } from "../test/browser/server.mjs";
import { began, buildPage, chromiumPath, cleanup, cleanups, kb, launchBrowser, loadAtStart, ms, open, progress, quantile, report, rows, ROWS, RUNS, SEEDED, ui } from "./common.mjs";
import { scrolling } from "./scroll.mjs";
import { streaming } from "./stream.mjs";

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
