// Section 3 of the bench: frames while an agent streams (see bench.mjs).
import http from "node:http";
import { cleanups, FRAME_MS, ms, open, progress, quantile, report, STREAM_RUNS, TOKEN_MS, TOKENS } from "./common.mjs";

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
// 3. Frames while an agent streams

/**
 * The page's own work in a long animation frame: its scripts (the kit has no rAF callbacks, and
 * React schedules through MessagePort, so a FrameRequestCallback is the bench's frame counter, a
 * push) plus style and layout. A long frame with little work is time the page was not running:
 * on a loaded machine, the renderer waiting for a core.
 */
const work = (l) => l.scripts.filter((x) => x.invokerType !== "user-callback" || x.invoker !== "FrameRequestCallback").reduce((n, x) => n + x.duration, 0) + l.layout;

export async function streaming(browser, server, chat) {
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
