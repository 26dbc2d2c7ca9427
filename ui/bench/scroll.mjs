// Section 4 of the bench: scrolling back through a long conversation and forward again (see bench.mjs).
import { ms, open, progress, report } from "./common.mjs";

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

export async function scrolling(browser, server, chat) {
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
    const r = await page.evaluate(scrollBackAndForth, { first: "s 1", last: `s ${n}` });
    if (process.env.SCROLL_DEBUG) progress(`most nodes: ${r.nodes} (${r.atMost}); long tasks (ms after the start: duration): ${r.debug}`);
    if (process.env.SCROLL_PROFILE) progress(`self time (ms): ${await profileTop(cdp)}`);
    const heapBack = await heap();
    await context.close();
    reportScroll(n, r, heapStart, heapBack);
  }
}

let heapAt1000;
function heapFlat(n, used) {
  if (n === LENGTHS[0]) heapAt1000 = used;
  return heapAt1000 === undefined ? undefined : used <= heapAt1000 + 5 * 1048576;
}

/** In the page: scrolls the list back to its first message and forward to its last, three views
 * a step, each step waiting for its page; long tasks and the most DOM nodes on the way. */
async function scrollBackAndForth({ first, last }) {
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
}

/** The CPU profile's top self times. */
async function profileTop(cdp) {
  const { profile } = await cdp.send("Profiler.stop");
  const self = new Map();
  const byId = new Map(profile.nodes.map((nd) => [nd.id, nd]));
  const dt = profile.timeDeltas;
  profile.samples.forEach((id, i) => {
    const nd = byId.get(id);
    const name = `${nd.callFrame.functionName || "(anon)"} ${nd.callFrame.url.split("/").pop()}:${nd.callFrame.lineNumber}`;
    self.set(name, (self.get(name) ?? 0) + (dt[i] ?? 0) / 1000);
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${k} ${Math.round(v)}`).join("; ");
}

function reportScroll(n, r, heapStart, heapBack) {
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
