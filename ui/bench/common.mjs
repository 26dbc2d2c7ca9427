// The bench's shared parts: settings from the environment, progress and the report's rows,
// clean-ups, number formats, and the page and browser every section uses.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { chromium } from "playwright-core";
import { build as viteBuild } from "vite";

export const ui = fileURLToPath(new URL("..", import.meta.url));
export const env = (name, def) => (process.env[name] ? Number(process.env[name]) : def);
export const RUNS = env("RUNS", 10);
export const STREAM_RUNS = env("STREAM_RUNS", 3);
export const TOKENS = env("TOKENS", 200);
export const TOKEN_MS = env("TOKEN_MS", 15);
export const ROWS = 30; // the components' first page (the request builders' default limit)
export const SEEDED = 40; // more than a page, so the first page is full
export const FRAME_MS = 1000 / 60;
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const began = Date.now();
export const loadAtStart = loadavg()[0];
export const progress = (msg) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
export const cleanups = [];
export const cleanup = async () => {
  while (cleanups.length) await cleanups.pop()().catch(() => {});
};
process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));
process.on("SIGTERM", () => void cleanup().then(() => process.exit(143)));

export const rows = []; // { measure, result, goal, ok }
export const report = (measure, result, goal = "—", ok) => {
  rows.push({ measure, result, goal, verdict: ok === undefined ? "" : ok ? "met" : "NOT met" });
  progress(`${measure}: ${result}${goal !== "—" ? ` (goal ${goal}) ${ok ? "met" : "NOT met"}` : ""}`);
};

export const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
export const ms = (n) => `${Math.round(n)} ms`;
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  return s[lo] + (s[Math.ceil(i)] - s[lo]) * (i - lo);
}

// ---------------------------------------------------------------------------------------------
// The page, the browser

export async function buildPage() {
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

export function launchBrowser() {
  const args = ["--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--no-default-browser-check"];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return chromium.launch({ executablePath: chromiumPath, headless: true, args, timeout: 30_000 });
}

/** A fresh context (no cache) and page; navigates to the bench page and waits for the case. */
export async function open(browser, server, query, waitFor) {
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
