import { defineConfig } from "vitest/config";

// One config, four projects: the SDK runs in Node (its integration tests start a real
// `agentry chat`), the UI kit's unit tests in jsdom, the web app's unit tests (apps/web) in
// Node, and the browser tests (test/browser) in Node driving Debian's chromium through
// playwright-core, one file at a time.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "chat-sdk",
          root: "packages/chat-sdk",
          environment: "node",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          testTimeout: 30000,
        },
      },
      {
        test: {
          name: "ui-kit",
          root: "packages/ui-kit",
          environment: "jsdom",
          include: ["src/**/*.test.{ts,tsx}", "test/**/*.test.{ts,tsx}"],
          setupFiles: ["./test/setup.ts"],
          testTimeout: 30000,
        },
      },
      {
        test: {
          name: "web",
          root: "apps/web",
          environment: "node",
          include: ["src/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "browser",
          root: "test/browser",
          environment: "node",
          include: ["**/*.test.ts"],
          exclude: ["**/node_modules/**", "dist/**", "artifacts/**"],
          // Builds the page unless scripts/test.mjs just did (AGENTRY_TEST_PAGE_BUILT=1).
          globalSetup: ["./global-setup.ts"],
          testTimeout: 120000,
          hookTimeout: 120000,
          // A test waits for a state, for as long as a busy machine may take: expect.poll as long
          // as playwright's waits (10 s, harness newPage), not vitest's default 1 s.
          expect: { poll: { timeout: 10_000 } },
          // One chromium and real agentry processes per file: files run one after another.
          fileParallelism: false,
        },
      },
    ],
  },
});
