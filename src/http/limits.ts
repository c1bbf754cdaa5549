// The HTTP door's limits and timeouts, in one table, so a reader sees every bound in one place.
// Nothing here reads config or sockets; server.ts and the session code apply these numbers.

export const HTTP_LIMITS = {
  /** Live legacy (2025-11-25) sessions at once; the next initialize gets 503. */
  maxSessions: 256,
  /** Open response streams at once (SSE streams + stateless requests in flight); more get 503. */
  maxStreams: 1024,
  /** Headers must arrive within this (slowloris). */
  headersTimeoutMs: 10_000,
  /** The whole request (headers and body) must arrive within this. */
  requestTimeoutMs: 30_000,
  /** An idle keep-alive socket is closed after this. */
  keepAliveTimeoutMs: 5_000,
  /** A legacy session that saw no request for this long is ended (its id then answers 404). */
  sessionIdleMs: 30 * 60_000,
  /** Per SSE stream: the events kept for Last-Event-ID resumption (count and bytes). */
  replayEvents: 256,
  replayBytes: 1024 * 1024,
  /** An SSE stream whose client lets this much pile up unread is cut (the client is too slow). */
  streamBacklogBytes: 4 * 1024 * 1024,
  /** Finished streams a session remembers for resumption. */
  streamsRemembered: 32,
  /** Per legacy session: the processor's queues and concurrent requests. */
  sessionIncoming: 64,
  sessionOutgoing: 256,
  sessionInFlight: 32,
  /** After SIGTERM, how long in-flight requests may run before they are told to stop. */
  drainGraceMs: 2_000,
} as const;
