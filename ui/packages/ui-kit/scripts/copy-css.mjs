// Puts the stylesheets next to the bundle: consumers import "@agentry/ui-kit/css-variables.css"
// (design tokens on .chat) and "@agentry/ui-kit/styles.css" (every component's styles, each
// file scoped under its component's root class), concatenated from src/**/*.css.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
mkdirSync(join(root, "dist"), { recursive: true });
copyFileSync(join(src, "css-variables.css"), join(root, "dist", "css-variables.css"));

const files = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith(".css") && e.name !== "css-variables.css") files.push(p);
  }
};
walk(src);
const out = files.map((f) => `/* ${relative(src, f)} */\n${readFileSync(f, "utf8")}`).join("\n");
writeFileSync(join(root, "dist", "styles.css"), out);
