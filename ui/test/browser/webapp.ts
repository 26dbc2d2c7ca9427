// Shared by the web app's browser tests: one `agentry dev` and one Chromium per file, signing
// in as a development user, axe, and the conversation's composer.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { startDev, type DevProcess } from "../agentry.mjs";
import { expectAccessible, launchBrowser, newPage } from "./harness";

export interface WebApp {
  dev(): DevProcess;
  browser(): Browser;
  /** Signs in as a development user (by the picker), then goes to path. */
  signIn(name: string, path?: string, viewport?: { width: number; height: number }): Promise<Page>;
  /** The text frames a signed-in page's WebSockets received so far. */
  socketFrames(page: Page): string[];
  expectAccessible(page: Page, what: string): Promise<void>;
}

/** Starts agentry dev (offline model; env and arguments added) and Chromium for the calling describe block. */
export function useWebApp(env: Record<string, string> = {}, args: string[] = []): WebApp {
  let dev: DevProcess;
  let browser: Browser;
  const pages: Page[] = [];
  const frames = new WeakMap<Page, string[]>();
  beforeAll(async () => {
    [dev, browser] = await Promise.all([startDev({ env: { OPENAI_API_KEY: "", ...env }, args }), launchBrowser()]);
  });
  afterAll(async () => {
    await Promise.all(pages.map((p) => p.context().close().catch(() => {})));
    await browser?.close();
    await dev?.stop();
  });
  return {
    dev: () => dev,
    browser: () => browser,
    async signIn(name, path = "/", viewport = { width: 1024, height: 768 }) {
      const page = await newPage(browser, dev.base, { viewport });
      pages.push(page);
      const got: string[] = [];
      frames.set(page, got);
      page.on("websocket", (ws) => ws.on("framereceived", (f) => void (typeof f.payload === "string" && got.push(f.payload))));
      await page.goto("/");
      await page.getByRole("button", { name: `Sign in as ${name}` }).click();
      await page.getByRole("button", { name: "Log out" }).waitFor();
      if (path !== "/") await page.goto(path);
      return page;
    },
    socketFrames: (page) => frames.get(page) ?? [],
    expectAccessible,
  };
}

export const main = (p: Page) => p.getByRole("main");
export const composer = (p: Page) => main(p).getByRole("textbox");

/** Sends text from the open conversation's composer. */
export async function send(p: Page, text: string): Promise<void> {
  await composer(p).fill(text);
  await composer(p).press("Enter");
  await expect.poll(() => composer(p).inputValue()).toBe("");
}
