// @vitest-environment node
// The stylesheet's contract: every spec selector of the groups list is styled, and every rule
// is scoped under .chat-groups (a host page's own elements are never selected).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SPEC_SELECTORS } from "./testing";

const css = ["./groups.css", "./states.css"]
  .map((f) => readFileSync(new URL(f, import.meta.url), "utf8"))
  .join("\n")
  .replace(/\/\*[\s\S]*?\*\//g, "");


/** Selectors of the style rules (inside @media too; not @keyframes steps). */
function selectors(text: string): string[] {
  const out: string[] = [];
  const re = /([^{}]+)\{/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const head = (m[1] ?? "").trim();
    if (head.startsWith("@")) continue;
    // split on the commas outside parentheses (":is(a, b)" is one selector)
    let depth = 0;
    let cur = "";
    for (const ch of head) {
      if (ch === "(") depth++;
      if (ch === ")") depth--;
      if (ch === "," && depth === 0) {
        out.push(cur.trim());
        cur = "";
      } else cur += ch;
    }
    out.push(cur.trim());
  }
  return out;
}

describe("groups.css and states.css", () => {
  it("scopes every rule under .chat-groups", () => {
    const all = selectors(css);
    expect(all.length).toBeGreaterThan(50);
    for (const s of all) expect(s, s).toMatch(/^\.chat-groups(?![\w-])/);
  });

  it("styles every class of the specification's groups selectors", () => {
    const classes = new Set(SPEC_SELECTORS.flatMap((s) => s.match(/\.[\w-]+/g) ?? []));
    for (const c of classes) expect(css, c).toMatch(new RegExp(`\\${c}(?![\\w-])`));
  });

  it("reads only the design tokens of css-variables.css", () => {
    const tokens = readFileSync(new URL("../css-variables.css", import.meta.url), "utf8");
    const defined = new Set([...tokens.matchAll(/(--chat-[\w-]+)\s*:/g)].map((m) => m[1]));
    const used = new Set([...css.matchAll(/var\((--[\w-]+)/g)].map((m) => m[1]));
    for (const v of used) expect(defined.has(v), v).toBe(true);
  });
});
