export declare const distDir: string;

export interface PageServer {
  /** http://127.0.0.1:<port>, the page's origin. */
  readonly url: string;
  readonly port: number;
  /** Where /chat/v1 and /api go (an origin), or null while "down". */
  readonly target: string | null;
  /** Proxy elsewhere, or null to answer 502 and refuse WebSockets; closes open WebSockets. */
  setTarget(target: string | null): void;
  /** Closes every proxied WebSocket (clients see an abnormal close and reconnect). */
  dropConnections(): void;
  close(): Promise<void>;
}

export declare function startServer(opts?: {
  /** Base URL of the agentry process, e.g. "http://127.0.0.1:4111" (any path is ignored). */
  target?: string | null;
  /** Directory of the built page (default dist/). */
  root?: string;
  port?: number;
  host?: string;
}): Promise<PageServer>;
