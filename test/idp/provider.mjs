// A real OpenID provider for the sign-in tests: oidc-provider (OpenID Certified) with users that
// sign in with a password on its own login form, a groups claim and its own signing keys.
//
//   node provider.mjs <config.json>
//
// config.json: { "clients": [oidc-provider client metadata], "users": [{ "sub", "password",
// "email", "email_verified", "name", "picture", "groups" }], "ttl": { "IdToken": seconds,
// "AccessToken": seconds } }.
// Prints "issuer <url>" once it listens on a free loopback port; SIGINT or SIGTERM stops it.
//
// Machine callers: a client with grant_types ["client_credentials"] gets a JWT access token for
// a resource (POST /token grant_type=client_credentials&resource=<agent URL>&scope=agent), whose
// aud is that resource. POST /test/rotate-keys starts signing with a new key, the old one still
// published, as a provider rotating its keys does.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import Provider from "oidc-provider";
import { exportJWK, generateKeyPair } from "jose";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
// The users are read again at every sign-in, so a test can change someone's groups.
const users = { get: (sub) => JSON.parse(readFileSync(process.argv[2], "utf8")).users.find((u) => u.sub === sub) };

const server = createServer();
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

// Its own signing key, new at every start (the quick-start keys are the same everywhere).
let keyCount = 0;
async function newKey() {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: `test-${Date.now()}-${++keyCount}`, alg: "RS256", use: "sig" };
}
let keys = [await newKey()];

function newProvider() {
  return new Provider(issuer, options(keys));
}

const options = (jwksKeys) => ({
  clients: config.clients,
  jwks: { keys: jwksKeys },
  pkce: { required: () => true },
  scopes: ["openid", "email", "profile", "groups", "offline_access"],
  claims: { email: ["email", "email_verified"], profile: ["name", "picture"], groups: ["groups"] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => ({
        scope: "agent",
        audience: resource,
        accessTokenTTL: config.ttl?.AccessToken ?? 600,
        accessTokenFormat: "jwt",
        jwt: { sign: { alg: "RS256" } },
      }),
    },
    // The provider's own pages load nothing from elsewhere (the defaults import web fonts).
    rpInitiatedLogout: {
      enabled: true,
      async logoutSource(ctx, form) {
        ctx.body = page("Sign out", `<h1>Sign out of the Test IdP?</h1>${form}
<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button>`);
      },
      async postLogoutSuccessSource(ctx) {
        ctx.body = page("Signed out", "<h1>You are signed out of the Test IdP.</h1>");
      },
    },
  },
  async renderError(ctx, out) {
    ctx.type = "html";
    ctx.body = page("Error", `<h1>Error</h1><p role="alert">${escape(out.error)}: ${escape(out.error_description ?? "")}</p>`);
  },
  ttl: { ...(config.ttl ?? {}) },
  cookies: { keys: ["agentry-test-idp-cookie-key"] },
  async findAccount(_ctx, sub) {
    const u = users.get(sub);
    if (!u) return undefined;
    return {
      accountId: sub,
      async claims() {
        const { password: _password, ...claims } = u;
        return claims;
      },
    };
  },
  // Every client here is first-party: consent is granted without a page.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope("openid email profile groups");
    grant.addOIDCClaims(["email", "email_verified", "name", "picture", "groups"]);
    await grant.save();
    return grant;
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
});
let provider = newProvider();
provider.on("server_error", (_ctx, err) => console.error("server_error", err));

function page(title, body) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>${body}</main></body></html>`;
}

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const form = (uid, error) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test IdP sign-in</title></head>
<body><main><h1>Test IdP</h1>${error ? `<p role="alert">${escape(error)}</p>` : ""}
<form method="post" action="/interaction/${escape(uid)}/login">
<label>Username <input name="username" autocomplete="username" autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form></main></body></html>`;

async function readForm(req) {
  let body = "";
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

let callback = provider.callback();
server.on("request", async (req, res) => {
  const path = new URL(req.url, issuer).pathname;
  if (path === "/test/rotate-keys" && req.method === "POST") {
    // The new key signs from now on; the old one stays published for the tokens it signed.
    keys = [await newKey(), keys[0]];
    provider = newProvider();
    provider.on("server_error", (_ctx, err) => console.error("server_error", err));
    callback = provider.callback();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ kid: keys[0].kid }));
    return;
  }
  const m = /^\/interaction\/([^/]+)(\/login)?$/.exec(path);
  if (!m) return callback(req, res);
  try {
    const details = await provider.interactionDetails(req, res);
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(form(details.uid));
      return;
    }
    const body = await readForm(req);
    const user = users.get(body.get("username") ?? "");
    if (!user || user.password !== body.get("password")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(form(details.uid, "Wrong username or password."));
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: user.sub } }, { mergeWithLastSubmission: false });
  } catch (err) {
    res.writeHead(400, { "content-type": "text/plain" }).end(String(err?.message ?? err));
  }
});

console.log(`issuer ${issuer}`);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
