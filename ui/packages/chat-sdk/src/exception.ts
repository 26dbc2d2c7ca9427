/**
 * Every failure the SDK reports: the service's error code (`ERR_…`, see the catalogue in
 * chat/model/errors.go) and message, plus the SDK's own codes for what never reached the service.
 */
export class ChatException extends Error {
  /** A stable code: the service's (ERR_VALIDATION, ERR_GUID_NOT_FOUND, …) or the SDK's (below). */
  readonly code: string;
  /** Extra facts, e.g. `{ status: 404 }` for an HTTP answer. */
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, details?: Readonly<Record<string, unknown>>) {
    super(message);
    this.name = "ChatException";
    this.code = code;
    if (details !== undefined) this.details = details;
  }

  /**
   * The one conversion of anything thrown into a ChatException: a ChatException as it is (also
   * one of another copy of the SDK, recognised by its name), anything else ERR_INTERNAL.
   */
  static from(err: unknown): ChatException {
    if (err instanceof ChatException) return err;
    const e = err as { name?: unknown; code?: unknown; message?: unknown; details?: Record<string, unknown> } | null | undefined;
    if (e?.name === "ChatException" && typeof e.code === "string") return new ChatException(e.code, String(e.message ?? e.code), e.details);
    return new ChatException(SDK_ERROR.INTERNAL, err instanceof Error ? err.message : String(err));
  }
}

/** Codes the SDK produces itself. */
export const SDK_ERROR = {
  /** The service could not be reached, or the answer was cut (transport failure, timeout). */
  NETWORK: "ERR_NETWORK",
  /** The service closed the socket because the user holds too many (close code 4009). */
  TOO_MANY_SOCKETS: "ERR_TOO_MANY_SOCKETS",
  /** An operation that needs a session was called before login or after logout. */
  NOT_LOGGED_IN: "ERR_NOT_LOGGED_IN",
  /** An operation was called before Chat.init. */
  NOT_INITIALIZED: "ERR_NOT_INITIALIZED",
  /** An argument the SDK rejects before calling the service. */
  VALIDATION: "ERR_VALIDATION",
  /** An answer the SDK could not understand. */
  INTERNAL: "ERR_INTERNAL",
} as const;
