// The browser tests' web server: serves the built page (dist/) and proxies /chat/v1/* (HTTP and
// WebSocket upgrades) and /api/* to the agentry process under test, so the page and the chat
// service share one origin (no CORS). The Host header passes through unchanged, so the service
// sees the page's own origin, as behind a real reverse proxy.
//
//   import { startServer } from "./server.mjs";
//   const srv = await startServer({ target: "http://127.0.0.1:4111" });
//   srv.url                // "http://127.0.0.1:<port>"
//   srv.setTarget(url)     // proxy elsewhere (an agentry restarted on another port), or null:
//                          // the service is "down" (502, WebSockets refused); closes open sockets
//   srv.dropConnections()  // closes every proxied WebSocket (a network blip: clients resume)
//   await srv.close()
//
// By hand: node test/browser/server.mjs --target http://127.0.0.1:4111 [--port 5180]
import { createReadStream, existsSync, statSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const distDir = fileURLToPath(new URL("./dist/", import.meta.url));

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".ogg": "audio/ogg",
};

// Hop-by-hop headers (RFC 9110 §7.6.1) are not forwarded on plain HTTP requests.
const HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"]);

const proxied = (url) => url.startsWith("/chat/v1/") || url === "/chat/v1" || url.startsWith("/chat/v1?") || url.startsWith("/api/");

/**
 * @param {{ target?: string | null, root?: string, port?: number, host?: string }} [opts]
 * @returns {Promise<{ url: string, port: number, target: string | null,
 *   setTarget(t: string | null): void, dropConnections(): void, close(): Promise<void> }>}
 */
export async function startServer(opts = {}) {
  /** target: where /chat/v1 and /api go (null: down); upgraded: [client, upstream] socket pairs of proxied WebSockets. */
  const st = { root: resolve(opts.root ?? distDir), target: parseTarget(opts.target ?? null), upgraded: new Set() };
  const server = http.createServer((req, res) => {
    if (proxied(req.url ?? "/")) return proxyHTTP(st, req, res);
    serveStatic(st.root, req, res);
  });
  server.on("upgrade", (req, socket, head) => proxyUpgrade(st, req, socket, head));

  const sockets = new Set();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", ok);
  });
  const addr = /** @type {import("node:net").AddressInfo} */ (server.address());
  const dropConnections = () => {
    for (const [a, b] of st.upgraded) {
      a.destroy();
      b.destroy();
    }
    st.upgraded.clear();
  };
  return {
    url: `http://127.0.0.1:${addr.port}`,
    port: addr.port,
    get target() {
      return st.target ? st.target.origin : null;
    },
    setTarget(t) {
      st.target = parseTarget(t);
      dropConnections();
    },
    dropConnections,
    close() {
      dropConnections();
      for (const s of sockets) s.destroy();
      return new Promise((ok) => server.close(() => ok()));
    },
  };
}

function proxyHTTP(st, req, res) {
  const target = st.target;
  if (!target) return bad(res, 502, "proxy target is down");
  const headers = {};
  for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k)) headers[k] = v;
  const up = http.request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
    (ur) => {
      const h = {};
      for (const [k, v] of Object.entries(ur.headers)) if (!HOP.has(k)) h[k] = v;
      res.writeHead(ur.statusCode ?? 502, ur.statusMessage, h);
      ur.pipe(res);
      ur.on("error", () => res.destroy());
    },
  );
  up.on("error", (e) => {
    if (!res.headersSent) bad(res, 502, `proxy: ${e.message}`);
    else res.destroy();
  });
  res.on("close", () => {
    if (!res.writableFinished) up.destroy();
  });
  req.pipe(up);
}

/** A WebSocket upgrade: the request passed on as it came, then bytes both ways. */
function proxyUpgrade(st, req, socket, head) {
  const target = st.target;
  socket.on("error", () => {});
  if (!proxied(req.url ?? "/") || !target) {
    socket.end(`HTTP/1.1 ${target ? 404 : 502} ${target ? "Not Found" : "Bad Gateway"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    return;
  }
  const up = net.connect(Number(target.port), target.hostname);
  const pair = [socket, up];
  st.upgraded.add(pair);
  const done = () => {
    st.upgraded.delete(pair);
    socket.destroy();
    up.destroy();
  };
  up.on("error", () => {
    if (socket.writable && up.bytesRead === 0) {
      socket.end("HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    }
    done();
  });
  up.on("connect", () => {
    // The client's request as it came (Upgrade and Connection included), raw headers in order.
    let head1 = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`;
    for (let i = 0; i < req.rawHeaders.length; i += 2) head1 += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
    up.write(head1 + "\r\n");
    if (head?.length) up.write(head);
    socket.pipe(up);
    up.pipe(socket);
  });
  socket.setNoDelay(true);
  up.setNoDelay(true);
  socket.on("close", done);
  up.on("close", done);
}

function serveStatic(root, req, res) {
  if (req.method !== "GET" && req.method !== "HEAD") return bad(res, 405, "method not allowed");
  let path;
  try {
    path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
  } catch {
    return bad(res, 400, "bad path");
  }
  let file = normalize(join(root, path));
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) return bad(res, 403, "forbidden");
  if (!existsSync(file) || statSync(file).isDirectory()) {
    // Unknown paths without an extension get the page (a client-side route); assets 404.
    if (extname(path)) return bad(res, 404, "not found");
    file = join(root, "index.html");
    if (!existsSync(file)) return bad(res, 500, `no ${file}: build the page (vite build --config test/browser/vite.config.ts)`);
  }
  res.writeHead(200, {
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "content-length": statSync(file).size,
    "cache-control": "no-store",
  });
  if (req.method === "HEAD") return res.end();
  createReadStream(file).pipe(res);
}

function parseTarget(t) {
  if (!t) return null;
  const u = new URL(t);
  if (u.protocol !== "http:") throw new Error(`proxy target must be http://…, got ${t}`);
  if (!u.port) u.port = "80";
  return u;
}

function bad(res, code, msg) {
  res.writeHead(code, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  res.end(msg + "\n");
}

// CLI: serve the page by hand for debugging a case in a desktop browser.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (n) => {
    const i = process.argv.indexOf(n);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const srv = await startServer({ target: arg("--target") ?? null, port: Number(arg("--port") ?? 5180) });
  console.log(`test page at ${srv.url}/?case=smoke (proxying /chat/v1 and /api to ${srv.target ?? "nothing"})`);
}
