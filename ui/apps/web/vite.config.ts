// Builds the web app into embed/app, which the agentry binary embeds (webapp.go) and serves at
// "/" of `agentry dev` and `agentry chat`. From ui/: `npm run build:web`.
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here("."),
  base: "/",
  plugins: [react()],
  logLevel: "warn",
  build: {
    outDir: here("./embed/app"),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev --workspace @agentry/web` against a local `agentry dev` (port 4111).
    proxy: {
      "/chat/v1": { target: "http://127.0.0.1:4111", ws: true },
      "/app-config.json": "http://127.0.0.1:4111",
    },
  },
});
