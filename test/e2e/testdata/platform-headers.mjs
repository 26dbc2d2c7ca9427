// Preloaded into the platform client by the e2e test (node --import): adds the headers the
// chat platform is configured with — the keys and values of the Agent's auth Secret, given as
// JSON in AGENTRY_E2E_HEADERS — to every request, as the platform's "Headers" field does.
const headers = JSON.parse(process.env.AGENTRY_E2E_HEADERS ?? "{}");
const original = globalThis.fetch;
globalThis.fetch = (input, init = {}) => {
  const h = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  for (const [k, v] of Object.entries(headers)) h.set(k, v);
  return original(input, { ...init, headers: h });
};
