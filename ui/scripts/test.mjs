// `npm test` (ui/): typecheck and build the workspace packages and the web app, build the
// browser tests' page, run every vitest project (chat-sdk, ui-kit, web, browser), and end with one plain line
// `N passed, N failed`. Exit status 1 when anything failed.
//
// Extra arguments go to vitest: `npm test -- --project browser`, `npm test -- -t "paging"`.
// A typecheck or build step that fails counts as one failed test (the tests still run, so
// one mistake does not hide the rest); so does a test file that fails before its tests run.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ui = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => join(ui, "node_modules", ".bin", name);
const pkg = JSON.parse(readFileSync(join(ui, "package.json"), "utf8"));
const failedSteps = [];

function step(title, cmd, args, env = {}) {
  console.log(`\n--- ${title}`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: ui, stdio: "inherit", env: { ...process.env, ...env } });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  const ok = r.status === 0;
  if (!ok) {
    failedSteps.push(title);
    console.log(`--- FAILED: ${title} (${r.error?.message ?? `exit ${r.status ?? r.signal}`}, ${secs}s)`);
  } else {
    console.log(`--- ok: ${title} (${secs}s)`);
  }
  return ok;
}

// Workspaces in package.json order (chat-sdk before ui-kit, which builds against its types).
// "packages/*" style entries expand to their subdirectories, in name order.
const dirs = pkg.workspaces.flatMap((w) =>
  w.endsWith("/*")
    ? existsSync(join(ui, w.slice(0, -2)))
      ? readdirSync(join(ui, w.slice(0, -2)), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => `${w.slice(0, -2)}/${e.name}`)
          .sort()
      : []
    : [w],
);
const workspaces = [];
for (const dir of dirs) {
  const manifest = join(ui, dir, "package.json");
  if (!existsSync(manifest)) continue;
  const { name } = JSON.parse(readFileSync(manifest, "utf8"));
  // Packages start at src/index.ts, the web app (apps/web) at src/main.tsx.
  if (!existsSync(join(ui, dir, "src", "index.ts")) && !existsSync(join(ui, dir, "src", "main.tsx"))) {
    console.log(`note: ${name} (${dir}) has no src/index.ts or src/main.tsx yet: not typechecked or built`);
    continue;
  }
  workspaces.push({ dir, name });
}

// Each typechecked then built before the next: the UI kit's types come from the SDK's dist,
// the web app's from both (its build, apps/web/embed/app, is what `make build` embeds).
for (const w of workspaces) {
  step(`typecheck ${w.name}`, bin("tsc"), ["-p", w.dir, "--noEmit"]);
  step(`build ${w.name}`, "npm", ["run", "build", "--workspace", w.name, "--silent"]);
}
const pageBuilt = step("build the browser tests' page", bin("vite"), ["build", "--config", "test/browser/vite.config.ts"]);
step("typecheck test/browser", bin("tsc"), ["-p", "test/browser"]);
// The SDK's integration tests are plain vitest files that vitest runs without a type check.
step("typecheck chat-sdk tests", bin("tsc"), ["-p", "packages/chat-sdk/test"]);

const out = mkdtempSync(join(tmpdir(), "agentry-ui-test-"));
const report = join(out, "vitest.json");
const vitestOk = step(
  process.argv.length > 2 ? `vitest run ${process.argv.slice(2).join(" ")}` : "vitest run (chat-sdk, ui-kit, web, browser)",
  bin("vitest"),
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  pageBuilt ? { AGENTRY_TEST_PAGE_BUILT: "1" } : {},
);

let results;
try {
  results = JSON.parse(readFileSync(report, "utf8"));
} catch {
  results = undefined;
}
rmSync(out, { recursive: true, force: true });
let passed = 0;
let testsFailed = 0;
let skipped = 0;
if (results) {
  passed = results.numPassedTests ?? 0;
  testsFailed = results.numFailedTests ?? 0;
  skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
  // A file that failed without a failed test (an import error, a failing beforeAll).
  for (const f of results.testResults ?? []) {
    if (f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed")) {
      testsFailed += 1;
      console.log(`FAILED file: ${f.name}${f.message ? `: ${String(f.message).split("\n")[0]}` : ""}`);
    }
  }
} else {
  console.log("vitest wrote no results");
}
// vitest failed without a failed test to show for it (no results, an unhandled error, ...).
if (!vitestOk && testsFailed === 0) testsFailed = 1;
const failed = testsFailed + failedSteps.filter((s) => !s.startsWith("vitest")).length;

for (const s of failedSteps.filter((s) => !s.startsWith("vitest"))) console.log(`FAILED step: ${s}`);
if (skipped) console.log(`${skipped} skipped`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
