// Global set-up of the vitest project "browser": builds the test page (test/browser/dist) so
// `npx vitest run --project browser` picks up edited cases, unless scripts/test.mjs has just
// built it (AGENTRY_TEST_PAGE_BUILT=1); and fails early when chromium is missing.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "vite";

export default async function setup() {
  const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(chromium)) {
    throw new Error(`${chromium} is missing: apt-get install chromium (make test installs it), or set CHROMIUM_PATH`);
  }
  if (process.env.AGENTRY_TEST_PAGE_BUILT !== "1") {
    await build({ configFile: fileURLToPath(new URL("./vite.config.ts", import.meta.url)) });
  }
}
