// Types of agentry.mjs: real agentry processes for the UI tests (see the comment at its top).

/** The repository root (ui/..). */
export declare const repoDir: string;

/** The binary the launcher runs: $AGENTRY_BIN (relative to ui/) or <repo>/bin/agentry. */
export declare function agentryBin(): string;

export interface RestClient {
  /** A REST call under /chat/v1 with the REST API key, or with `auth` as a bearer token;
   * resolves with the parsed JSON (null for 204) and rejects with an Error carrying
   * `status` and `body` for non-2xx answers. */
  call<T = unknown>(method: string, path: string, body?: unknown, auth?: string): Promise<T>;
  /** POST /users with the API key. */
  createUser(uid: string, name?: string, extra?: Record<string, unknown>): Promise<unknown>;
  /** POST /users/{uid}/auth_tokens: a token for Chat.login(token). */
  mintToken(uid: string, expiresIn?: number): Promise<string>;
}

interface AgentryProcess extends RestClient {
  /** The service's origin, e.g. "http://127.0.0.1:40123": Chat.init's `host`. */
  readonly base: string;
  /** base + "/chat/v1". */
  readonly api: string;
  /** The REST API key (header apikey). */
  readonly apiKey: string;
  /** App ID and Auth Key of the development login: Chat.login(uid, authKey). */
  readonly appId: string;
  readonly authKey: string;
  /** The process's temporary working directory (removed by stop()). */
  readonly dir: string;
  /** The process's recent log lines. */
  output(): string;
  /** SIGKILL: the service is down. */
  kill(): Promise<void>;
  /** SIGTERM (SIGKILL after 5 s) and removes the temporary directory. */
  stop(): Promise<void>;
}

export interface ChatProcess extends AgentryProcess {
  /** Stops (if running) and starts again on the same address and database. */
  restart(): Promise<void>;
}

export type DevProcess = AgentryProcess;

export interface LaunchOptions {
  /** Extra command-line flags. */
  args?: string[];
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** How long to wait for the start-up line (default 60000). */
  timeoutMs?: number;
}

/** `agentry chat` on SQLite with the development login on (App ID "test", Auth Key "test-auth-key"
 * unless given), http agents allowed, a random REST API key and headers key. */
export declare function startChat(opts?: LaunchOptions & { authKey?: string; appId?: string; addr?: string }): Promise<ChatProcess>;

/** A free loopback address (host:port) for a server whose URL must be known before it starts. */
export declare function freeAddress(): Promise<string>;

export interface IdpUser {
  sub: string;
  password: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
  groups?: string[];
}

export interface IdpClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  post_logout_redirect_uris?: string[];
}

/** The test identity provider (test/idp: oidc-provider from npm) on a loopback port. */
export declare function startIdp(cfg: { clients: IdpClient[]; users: IdpUser[] }): Promise<{ issuer: string; output(): string; stop(): Promise<void> }>;

/** `agentry dev --dir <samples>` (default <repo>/config/samples) in a temporary working
 * directory: the chef and weather agents registered on its chat service (App ID "agentry-dev",
 * Auth Key "agentry-dev-auth-key"), answered by the scripted dev model. */
export declare function startDev(opts?: LaunchOptions & { samples?: string }): Promise<DevProcess>;
