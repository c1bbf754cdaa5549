// The Redis client's error classes and the table of what each kind means (retryable or not).
// Callers trust `instanceof RedisError` and its `kind`; nothing here talks to a socket or retries.

/** Every kind of failure the client reports, and whether the same command may succeed if sent again later. */
export const REDIS_ERROR_KINDS = {
  /** The server answered with an error reply (WRONGTYPE, NOSCRIPT, ERR …): sending it again gives the same answer. */
  reply: { retryable: false },
  /**
   * The server answered that it cannot run commands for now (one of NOT_READY_REPLIES: still loading
   * its data after a restart, stuck in a long script, cut from its primary): the command did not run.
   */
  not_ready: { retryable: true },
  /**
   * Redis refused the credentials (WRONGPASS: wrong user or password; NOAUTH: it needs one and the
   * URL gives none). Waiting does not fix a password: someone must change the URL or the server.
   */
  auth: { retryable: false },
  /** The connection failed or was lost while the command was in flight (it may or may not have run). */
  connection: { retryable: true },
  /** No connection right now (the client is reconnecting): the command was not sent. */
  unavailable: { retryable: true },
  /** No reply within the command timeout; the connection was reset (it may or may not have run). */
  timeout: { retryable: true },
  /** Too many commands already wait for replies on this connection: the command was not sent. */
  queue_full: { retryable: true },
  /** A reply exceeded the byte or depth bound; the connection was closed. */
  reply_bound: { retryable: false },
  /** The server sent bytes that are not RESP2; the connection was closed. */
  protocol: { retryable: false },
  /** The Redis URL is malformed. */
  url: { retryable: false },
  /** The caller closed the client. */
  closed: { retryable: false },
} as const;

export type RedisErrorKind = keyof typeof REDIS_ERROR_KINDS;

export class RedisError extends Error {
  readonly kind: RedisErrorKind;
  readonly retryable: boolean;
  constructor(kind: RedisErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.kind = kind;
    this.retryable = REDIS_ERROR_KINDS[kind].retryable;
  }
}

/**
 * The error replies that say "not now" rather than "no": LOADING (a restarted Redis still reading its
 * data), BUSY (a script ran past its time limit), MASTERDOWN (a replica cut from its primary). In each
 * the command was refused before it ran, so sending it again later is safe and may succeed.
 */
export const NOT_READY_REPLIES: ReadonlySet<string> = new Set(['LOADING', 'BUSY', 'MASTERDOWN']);

/** The error replies that mean the credentials are wrong or missing (ACL's NOPERM is about one command, not the login). */
export const AUTH_REPLIES: ReadonlySet<string> = new Set(['WRONGPASS', 'NOAUTH']);

/**
 * An error reply, as Redis wrote it: `prefix` is its first word when upper-case (WRONGTYPE, NOSCRIPT,
 * ERR). Its kind is `not_ready` (retryable) for the prefixes of NOT_READY_REPLIES, else `reply`.
 */
export class RedisReplyError extends RedisError {
  readonly prefix: string;
  /** The server's text, unchanged (prefix included). */
  readonly serverMessage: string;
  constructor(serverMessage: string) {
    const prefix = /^[A-Z][A-Z_-]*(?=\s|$)/.exec(serverMessage)?.[0] ?? '';
    super(NOT_READY_REPLIES.has(prefix) ? 'not_ready' : AUTH_REPLIES.has(prefix) ? 'auth' : 'reply',
      AUTH_REPLIES.has(prefix) ? `Redis refused the credentials (${serverMessage}); check the user and password in the store URL` : `Redis replied with an error: ${serverMessage}`);
    this.serverMessage = serverMessage;
    this.prefix = prefix;
  }
}
export class RedisConnectionError extends RedisError {
  constructor(message: string, cause?: unknown) { super('connection', message, cause === undefined ? undefined : { cause }); }
}
export class RedisUnavailableError extends RedisError {
  constructor(address: string, why: RedisError | null) {
    // Refused credentials are no outage: "retry later" would send the user waiting for nothing.
    if (why?.kind === 'auth') super('auth', `Redis at ${address} refused the credentials: ${why.message}`);
    else super('unavailable', `Redis at ${address} is not connected (reconnecting${why ? `; last failure: ${why.message}` : ''}); retry later`);
  }
}
export class RedisTimeoutError extends RedisError {
  constructor(command: string, timeoutMs: number) {
    super('timeout', `Redis gave no reply to ${command} within ${timeoutMs} ms; the connection was reset`);
  }
}
export class RedisQueueFullError extends RedisError {
  constructor(command: string, limit: number) {
    super('queue_full', `${command} not sent: ${limit} Redis commands already wait for replies on this connection`);
  }
}
export class RedisReplyBoundError extends RedisError {
  readonly bound: 'bytes' | 'depth';
  constructor(bound: 'bytes' | 'depth', limit: number) {
    super('reply_bound', bound === 'bytes'
      ? `a Redis reply exceeds ${limit} bytes; refused and the connection closed`
      : `a Redis reply nests deeper than ${limit} levels; refused and the connection closed`);
    this.bound = bound;
  }
}
export class RedisProtocolError extends RedisError {
  constructor(message: string) { super('protocol', `malformed Redis reply: ${message}`); }
}
export class RedisUrlError extends RedisError {
  constructor(message: string) { super('url', `Redis URL: ${message} (expected redis://[user:pass@]host:port[/db] or rediss://…)`); }
}
export class RedisClosedError extends RedisError {
  constructor() { super('closed', 'the Redis client was closed'); }
}
