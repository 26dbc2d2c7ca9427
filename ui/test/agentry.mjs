// Real agentry processes for the UI tests (SDK integration tests, browser tests).
//
// Nothing is built here: the binary is $AGENTRY_BIN, else ../bin/agentry relative to ui/
// (`make build` at the repository root produces it). Each process gets its own temporary
// directory (SQLite database, media, cwd), random keys and a free port, so test files may run
// side by side. Every process still running when Node exits is killed.
//
//   import { startChat, startDev } from "../../../test/agentry.mjs";
//
//   const chat = await startChat();              // agentry chat, SQLite, dev login enabled
//   chat.base                                    // "http://127.0.0.1:PORT" (Chat.init's host)
//   chat.api                                     // chat.base + "/chat/v1"
//   chat.appId, chat.authKey                     // "test", "test-auth-key-0123456": Chat.login(uid, authKey)
//   chat.apiKey                                  // REST API key (header apikey)
//   await chat.createUser("alice", "Alice");     // POST /users with the API key
//   const token = await chat.mintToken("alice"); // POST /users/alice/auth_tokens: Chat.login(token)
//   await chat.call("PUT", "/agents/x", body);   // any REST call with the API key → parsed JSON
//   await chat.restart();                        // stop, then start again on the same port and data
//   await chat.stop();                           // SIGTERM (SIGKILL after 5 s), temp dir removed
//
//   const dev = await startDev();                // agentry dev --dir config/samples: chef and
//   dev.base, dev.api, dev.apiKey                // weather agents registered on its chat service,
//   dev.appId === "agentry-dev"                  // answered by the scripted dev model
//   dev.authKey === "agentry-dev-auth-key"
//
// startChat options: { authKey, appId, args: [extra flags], env: {extra env} }.
// startDev options: { samples: directory of manifests (default <repo>/config/samples), args, env }.
// Both: { timeoutMs } to wait for the start-up line (default 60 s); output() returns the
// process's recent log lines (put them in assertion messages).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const uiDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const repoDir = resolve(uiDir, "..");

/** The agentry binary the launcher runs. */
export function agentryBin() {
  return process.env.AGENTRY_BIN ? resolve(uiDir, process.env.AGENTRY_BIN) : join(repoDir, "bin", "agentry");
}

const running = new Set();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Runs agentry with args in cwd until a line matches ready; resolves with the match. */
function launch({ args, cwd, env, ready, timeoutMs = 60_000, bin = agentryBin() }) {
  const lines = [];
  const child = spawn(bin, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  const exited = new Promise((res) => child.once("exit", (code, signal) => {
    running.delete(child);
    res({ code, signal });
  }));
  const output = () => lines.join("\n");
  const matched = new Promise((res, rej) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      rej(new Error(`agentry ${args[0]} did not start within ${timeoutMs} ms:\n${output()}`));
    }, timeoutMs);
    const onText = (chunk) => {
      for (const line of chunk.toString().split("\n")) {
        if (line === "") continue;
        lines.push(line);
        if (lines.length > 400) lines.shift();
        const m = ready.exec(line);
        if (m) {
          clearTimeout(timer);
          res(m);
        }
      }
    };
    child.stdout.on("data", onText);
    child.stderr.on("data", onText);
    child.once("error", (err) => {
      clearTimeout(timer);
      rej(new Error(`cannot run ${agentryBin()} (run make build at the repository root, or set AGENTRY_BIN): ${err.message}`));
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`agentry ${args[0]} exited (${code ?? signal}) before it was ready:\n${output()}`));
    });
  });
  const stop = async (signal = "SIGTERM") => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const t = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(t);
  };
  return { matched, output, stop, child };
}

function restClient(api, apiKey) {
  /** A REST call with the API key (auth: a bearer token instead); resolves with the parsed JSON. */
  async function call(method, path, body, auth) {
    const headers = { "content-type": "application/json" };
    if (auth) headers.authorization = `Bearer ${auth}`;
    else headers.apikey = apiKey;
    const res = await fetch(api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    const json = text ? JSON.parse(text) : null;
    if (!res.ok) {
      const err = new Error(`${method} ${path}: ${res.status} ${text}`);
      err.status = res.status;
      err.body = json;
      throw err;
    }
    return json;
  }
  return {
    call,
    // agentry dev seeds alice, bob, carol and admin on first start: creating one of them again
    // answers 409, and the test gets the seeded user.
    createUser: (uid, name = uid, extra = {}) =>
      call("POST", "/users", { uid, name, ...extra }).catch((err) => {
        if (err.status === 409) return { uid, name, ...extra };
        throw err;
      }),
    mintToken: async (uid, expiresIn) => (await call("POST", `/users/${uid}/auth_tokens`, expiresIn ? { expiresIn } : {})).authToken,
  };
}

/** Starts `agentry chat` on SQLite with the development login on (App ID + Auth Key). */
export async function startChat(opts = {}) {
  const dir = mkdtempSync(join(tmpdir(), "agentry-chat-"));
  const apiKey = randomBytes(16).toString("hex");
  const authKey = opts.authKey ?? "test-auth-key-0123456";
  const appId = opts.appId ?? "test";
  const env = {
    AGENTRY_CHAT_API_KEY: apiKey,
    AGENTRY_CHAT_HEADERS_KEY: randomBytes(32).toString("hex"),
    AGENTRY_CHAT_ALLOW_HTTP_AGENTS: "true",
    // The tests' agents listen on loopback, which agent URLs may reach only when allowed.
    AGENTRY_CHAT_AGENT_ALLOW_NETWORKS: "127.0.0.0/8",
    ...opts.env,
  };
  const argsFor = (addr) => ["chat", "--addr", addr, "--storage", `file:${join(dir, "chat.db")}`, "--media-dir", join(dir, "media"),
    "--auth-key", authKey, "--app-id", appId, ...(opts.args ?? [])];
  let proc = launch({ args: argsFor(opts.addr ?? "127.0.0.1:0"), cwd: dir, env, ready: /msg="serving the chat service" addr=(\S+)/, timeoutMs: opts.timeoutMs });
  let addr;
  try {
    addr = (await proc.matched)[1];
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const base = `http://${addr}`;
  const api = `${base}/chat/v1`;
  let old = "";
  return {
    base, api, apiKey, authKey, appId, dir,
    ...restClient(api, apiKey),
    output: () => old + proc.output(),
    /** Kills the process abruptly (SIGKILL): the service is down until restart(). */
    kill: () => proc.stop("SIGKILL"),
    /** Stops (if running) and starts again on the same address and data. */
    async restart() {
      await proc.stop();
      old += proc.output() + "\n--- restart ---\n";
      // The port was just freed; another process could take it, so retry a few times.
      for (let i = 0; ; i++) {
        proc = launch({ args: argsFor(addr), cwd: dir, env, ready: /msg="serving the chat service" addr=(\S+)/, timeoutMs: opts.timeoutMs });
        try {
          await proc.matched;
          return;
        } catch (err) {
          if (i >= 4) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    },
    async stop() {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A free loopback address, for a server whose URL must be known before it starts (an identity
 * provider's redirect URL names it). */
export async function freeAddress() {
  const { createServer } = await import("node:net");
  const srv = createServer();
  await new Promise((res) => srv.listen(0, "127.0.0.1", res));
  const { port } = srv.address();
  await new Promise((res) => srv.close(res));
  return `127.0.0.1:${port}`;
}

/** Starts the test identity provider (test/idp: the OpenID Certified oidc-provider package) with
 * cfg ({ clients, users }); resolves with its issuer URL and stop(). */
export async function startIdp(cfg) {
  const dir = mkdtempSync(join(tmpdir(), "agentry-idp-"));
  const file = join(dir, "idp.json");
  writeFileSync(file, JSON.stringify(cfg));
  const idpDir = join(repoDir, "test", "idp");
  const proc = launch({ bin: process.execPath, args: [join(idpDir, "provider.mjs"), file], cwd: idpDir, env: {}, ready: /^issuer (\S+)/ });
  const issuer = (await proc.matched)[1];
  return {
    issuer,
    output: proc.output,
    async stop() {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts `agentry dev` on the sample agents (chef, weather) in a temporary working directory. */
export async function startDev(opts = {}) {
  const dir = mkdtempSync(join(tmpdir(), "agentry-dev-"));
  const samples = opts.samples ?? join(repoDir, "config", "samples");
  const proc = launch({
    args: ["dev", "--addr", "127.0.0.1:0", "--dir", samples, ...(opts.args ?? [])],
    cwd: dir,
    env: opts.env ?? {},
    ready: /Chat service: (http:\/\/\S+)\/chat\/v1/,
    timeoutMs: opts.timeoutMs,
  });
  let base;
  try {
    base = (await proc.matched)[1];
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const api = `${base}/chat/v1`;
  const apiKey = readFileSync(join(dir, ".agentry", "chat-api-key"), "utf8").trim();
  return {
    base, api, apiKey, dir,
    appId: "agentry-dev",
    authKey: "agentry-dev-auth-key",
    ...restClient(api, apiKey),
    output: proc.output,
    kill: () => proc.stop("SIGKILL"),
    async stop() {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
