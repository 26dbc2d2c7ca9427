import { ChatException, SDK_ERROR } from "./exception";

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface RequestOptions {
  query?: Readonly<Record<string, QueryValue>>;
  /** A JSON body. */
  body?: unknown;
  /** A multipart body (media uploads). */
  form?: FormData;
  /** "token" (default): the session's bearer token; "none"; or extra headers (authkey). */
  auth?: "token" | "none" | { readonly headers: Readonly<Record<string, string>> };
  /** The request is idempotent (a send with a muid): a network failure, whose request may or
   * may not have been applied, sends it again (NETWORK_RETRIES times) before failing. */
  retryNetwork?: boolean;
  /** Upload progress of a multipart body, 0 to 1 (sent through XMLHttpRequest, which reports
   * it; fetch does not). */
  onUploadProgress?: (fraction: number) => void;
}

export interface Answer<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** Service errors look like {"error":{"code":"ERR_…","message":"…"}}. */
function serviceError(status: number, body: unknown): ChatException {
  const e = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof e === "object" && e !== null) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && code !== "") {
      return new ChatException(code, typeof message === "string" ? message : code, { status });
    }
  }
  // Not the service talking (a proxy, a load balancer): 502-504 mean it could not be reached.
  if (status === 502 || status === 503 || status === 504) {
    return new ChatException(SDK_ERROR.NETWORK, `the chat service is unreachable (HTTP ${status})`, { status });
  }
  if (status === 401) return new ChatException("ERR_AUTH_TOKEN_INVALID", "unauthorized", { status });
  return new ChatException(SDK_ERROR.INTERNAL, `unexpected answer from the chat service (HTTP ${status})`, { status });
}

/** How often a rate-limited request is sent again, and the longest wait between (seconds). */
const RATE_RETRIES = 3;
const MAX_RATE_WAIT_S = 10;
/** How often an idempotent request is sent again after a network failure, and the waits. */
const NETWORK_RETRIES = 2;
const NETWORK_WAIT_MS = [500, 1500];

/** The REST client of one session: base URL, fetch, bearer token, timeouts, error mapping. */
export class Http {
  constructor(
    /** e.g. http://127.0.0.1:4111/chat/v1 */
    readonly base: string,
    private readonly fetchFn: FetchLike,
    private readonly token: () => string | undefined,
    private readonly timeoutMs = 30_000,
  ) {}

  url(path: string, query?: Readonly<Record<string, QueryValue>>): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === "") continue;
      if (Array.isArray(v)) {
        for (const x of v as readonly string[]) q.append(k, x);
      } else q.append(k, String(v));
    }
    const s = q.toString();
    return this.base + path + (s ? `?${s}` : "");
  }

  private headers(opts: RequestOptions): Record<string, string> {
    const h: Record<string, string> = { accept: "application/json" };
    const auth = opts.auth ?? "token";
    if (auth === "token") {
      const tok = this.token();
      if (!tok) throw new ChatException(SDK_ERROR.NOT_LOGGED_IN, "log in first (Chat.login)");
      h["authorization"] = `Bearer ${tok}`;
    } else if (auth !== "none") {
      Object.assign(h, auth.headers);
    }
    if (opts.body !== undefined) h["content-type"] = "application/json";
    return h;
  }

  /** Sends the request; a transport failure or timeout is ERR_NETWORK. */
  private async send(method: string, url: string, headers: Record<string, string>, body?: BodyInit, onProgress?: (f: number) => void): Promise<Response> {
    if (onProgress && typeof XMLHttpRequest !== "undefined") return this.sendWithProgress(method, url, headers, body, onProgress);
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), this.timeoutMs);
    try {
      const init: RequestInit = { method, headers, signal: ctl.signal };
      if (body !== undefined) init.body = body;
      return await this.fetchFn(url, init);
    } catch (err) {
      const why = ctl.signal.aborted ? `no answer within ${this.timeoutMs} ms` : err instanceof Error ? err.message : String(err);
      throw new ChatException(SDK_ERROR.NETWORK, `cannot reach the chat service: ${why}`, { url });
    } finally {
      clearTimeout(timer);
    }
  }

  /** send through XMLHttpRequest for its upload progress; the answer becomes a Response. */
  private sendWithProgress(method: string, url: string, headers: Record<string, string>, body: BodyInit | undefined, onProgress: (f: number) => void): Promise<Response> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(method, url);
      for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
      xhr.timeout = this.timeoutMs;
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
      };
      const fail = (why: string) => reject(new ChatException(SDK_ERROR.NETWORK, `cannot reach the chat service: ${why}`, { url }));
      xhr.onerror = () => fail("the connection failed");
      xhr.ontimeout = () => fail(`no answer within ${this.timeoutMs} ms`);
      xhr.onload = () => {
        const h = new Headers();
        for (const line of xhr.getAllResponseHeaders().trim().split(/[\r\n]+/)) {
          const i = line.indexOf(":");
          if (i > 0) h.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
        }
        resolve(new Response(xhr.status === 204 ? null : xhr.responseText, { status: xhr.status, headers: h }));
      };
      xhr.send((body ?? null) as XMLHttpRequestBodyInit | null);
    });
  }

  /**
   * send, waiting out the service's rate limit: a 429 did nothing, so the same request goes
   * again after Retry-After (whole seconds; 1 when absent, at most MAX_RATE_WAIT_S), up to
   * RATE_RETRIES times; then the 429 is the caller's ERR_RATE_LIMITED.
   */
  private async sendPatiently(method: string, url: string, opts: RequestOptions, body?: BodyInit): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      // Headers again each time: a session logged out while waiting fails (NOT_LOGGED_IN)
      // instead of sending a revoked token, and a new login's token is the one sent.
      const res = await this.send(method, url, this.headers(opts), body, opts.onUploadProgress);
      if (res.status !== 429 || attempt >= RATE_RETRIES) return res;
      const after = Number.parseInt(res.headers.get("retry-after") ?? "", 10);
      await res.body?.cancel().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 1000 * Math.min(Number.isFinite(after) && after > 0 ? after : 1, MAX_RATE_WAIT_S)));
    }
  }

  /**
   * Sends a request and reads its JSON answer; a failure is a ChatException. An idempotent
   * request (retryNetwork) whose connection failed, whose answer was cut or that a proxy
   * answered 502-504 is sent again.
   */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<Answer<T>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.requestOnce<T>(method, path, opts);
      } catch (err) {
        // No answer, a cut answer, or a proxy's 502-504 (the service was not reached, or its
        // answer lost): an idempotent request is safe to send again.
        const network = err instanceof ChatException && err.code === SDK_ERROR.NETWORK;
        if (!opts.retryNetwork || !network || attempt >= NETWORK_RETRIES) throw err;
        await new Promise((r) => setTimeout(r, NETWORK_WAIT_MS[attempt] ?? 1500));
      }
    }
  }

  private async requestOnce<T>(method: string, path: string, opts: RequestOptions): Promise<Answer<T>> {
    const body = opts.form ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined);
    const res = await this.sendPatiently(method, this.url(path, opts.query), opts, body);
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new ChatException(SDK_ERROR.NETWORK, `the answer was cut: ${err instanceof Error ? err.message : String(err)}`);
    }
    let parsed: unknown = null;
    if (text !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        if (res.ok) throw new ChatException(SDK_ERROR.INTERNAL, `the chat service answered ${method} ${path} with something that is not JSON`);
      }
    }
    if (!res.ok) throw serviceError(res.status, parsed);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  /** The answer's JSON body. */
  async json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return (await this.request<T>(method, path, opts)).body;
  }

  /** A binary resource behind the session's token (media). */
  async blob(url: string): Promise<Blob> {
    const res = await this.sendPatiently("GET", url, {});
    if (!res.ok) {
      let body: unknown = null;
      try {
        body = await res.json();
      } catch {
        // not JSON: classified by status
      }
      throw serviceError(res.status, body);
    }
    try {
      return await res.blob();
    } catch (err) {
      throw new ChatException(SDK_ERROR.NETWORK, `the answer was cut: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
