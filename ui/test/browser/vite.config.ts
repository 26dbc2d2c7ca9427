// Builds the browser tests' page (page/ → dist/): `vite build --config test/browser/vite.config.ts`
// from ui/ (scripts/test.mjs does it, and the browser project's global set-up when run alone).
// The page imports the workspace packages by name, so it runs their built dist/ like an app would.
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here("./page"),
  base: "/",
  plugins: [react()],
  logLevel: "warn",
  build: {
    outDir: here("./dist"),
    emptyOutDir: true,
    // Readable stack traces and selectors when a test fails; size does not matter here.
    minify: false,
    sourcemap: true,
    target: "es2022",
    reportCompressedSize: false,
  },
});
