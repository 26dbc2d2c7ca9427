import { defineConfig } from "vitest/config";

// One config, two projects: the SDK runs in Node (its integration tests start a real
// `agentry chat`), the UI kit's unit tests in jsdom. Browser tests (test/browser) run
// separately with playwright-core and Debian's chromium.
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
          testTimeout: 30000,
        },
      },
    ],
  },
});
