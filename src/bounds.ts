// Every bound on what clients can make the server hold — bytes, nesting depth, time, counts — for
// every door (stdio lines, HTTP bodies, sockets, answers not yet taken, Redis replies), in one table both transports read.
// It imports nothing and touches nothing: the code of each door applies these numbers.

/** Bounds no config key changes. */
export const BOUNDS = {
  /** Deepest nesting of arrays and objects accepted from outside (client messages over stdio and HTTP, IPC events, files). */
  jsonDepth: 1000,
  /** The smallest byte bound of a connection's incoming and outgoing queues (twice max_message_bytes when larger). */
  queueBytesMin: 16 * 1024 * 1024,
  /** Of a line (or body) over max_message_bytes, the first bytes kept to read its id for the refusal. */
  oversizeHeadBytes: 512,
  http: {
    /** Live legacy (2025-11-25) sessions at once; the next initialize gets 503. */
    maxSessions: 256,
    /** Open response streams at once (SSE streams + stateless requests in flight); more get 503. */
    maxStreams: 1024,
    /** Connections kept free below the process's descriptor limit (for files, logs, watchers). */
    descriptorReserve: 128,
    /** How often Node checks the header and request timeouts (their precision). */
    timeoutCheckMs: 250,
    /** Retry-After (seconds) of the 503 for a connection over the cap. */
    retryAfterS: 1,
    /** A legacy session that saw no request for this long is ended (its id then answers 404). */
    sessionIdleMs: 30 * 60_000,
    /** Per SSE stream: the events kept for Last-Event-ID resumption (count and bytes). */
    replayEvents: 256,
    replayBytes: 1024 * 1024,
    /** Per connection: bytes written but not taken by the client beyond which the next write cuts it (one answer may be larger). */
    connectionUnreadBytes: 4 * 1024 * 1024,
    /** Finished streams a session remembers for resumption, and the bytes of events they keep between them. */
    streamsRemembered: 32,
    sessionReplayBytes: 4 * 1024 * 1024,
    /** Per legacy session: the processor's queues and concurrent requests. */
    sessionIncoming: 64,
    sessionOutgoing: 256,
    sessionInFlight: 32,
  },
  /** The Redis client (src/redis/): what a server, or anything posing as one, can make it hold. */
  redis: {
    /** Largest reply accepted: far above a session record or a page of stream events, far below memory trouble. */
    maxReplyBytes: 16 * 1024 * 1024,
    /** Deepest reply nesting: stream reads nest 4 levels (XREAD → stream → entry → fields); the rest is margin. */
    maxReplyDepth: 16,
    /** Commands awaiting replies on one connection; past it a command fails at once instead of queuing in memory. */
    maxPending: 4096,
    /** A command without a reply by then fails and resets its connection (a healthy Redis answers in under a millisecond). */
    commandTimeoutMs: 5000,
    /** A TCP (and TLS) connection not established by then counts as a failed attempt. */
    connectTimeoutMs: 5000,
    /** Reconnect waits: the first after a failure, doubled per failed attempt up to the last (each jittered down by up to half). */
    reconnectMinMs: 100,
    reconnectMaxMs: 5000,
  },
  /** What the modules that keep state in Redis (tasks/, http/, authoring/, modes/) keep and how long they wait. */
  store: {
    /** A resumable stream's events live this long after its last event (a client reconnecting later gets "cannot resume"). */
    eventTtlMs: 10 * 60_000,
    /** How long a starting server waits for its store's first connection before serving without it: a Redis starting beside it is up by then, a down one costs a start no more. */
    startWaitMs: 2_000,
    /** One mode-change fan-out message: thousands of slugs fit; anything larger is not a change we publish. */
    fanoutMessageBytes: 256 * 1024,
    /** A mode-file lease runs out this long after its last renewal: a writer takes well under a second, a dead replica blocks no longer. */
    lockLeaseMs: 15_000,
    /** How long a writer waits for another replica's lease before answering "busy" (as the file lock's wait). */
    lockWaitMs: 10_000,
    /** Longest pause between looks at a held lease (pauses start at 1 ms and double). */
    lockPollMs: 50,
    /** The content of one fenced file the store records with each write (src/authoring/file-records.ts): a mode file of hundreds of modes is well under 1 MiB, and reading it back stays far below maxReplyBytes. A larger file is written without a store only. */
    recordBytes: 4 * 1024 * 1024,
    /** Writes a file's record remembers as built on one another: a stalled writer learns whether its write counted while fewer than this many writes followed it. */
    recordChain: 256,
    /** Writes of one file still landing (committed, not yet seen in place) the store remembers: only stalled or killed writers leave one behind. */
    intentsPerFile: 64,
    /** How long such a write's content counts as a stale copy to repair rather than a hand edit: a writer stopped longer, and killed before it could check, leaves its content to be taken as an edit. */
    intentMs: 24 * 60 * 60_000,
    /** A legacy MCP session's record read back (capabilities, client info, subscriptions): real clients send a few kilobytes. */
    mcpSessionBytes: 256 * 1024,
    /** Resource subscriptions one legacy MCP session keeps: the catalogue has three URIs per mode, so a thousand covers 300+ modes. */
    mcpSubscriptions: 1000,
    /** Nesting of the client capabilities kept in a record: the spec's objects nest 3 levels; the rest is margin. */
    mcpCapabilityDepth: 32,
    /** One "session ended / changed" message between replicas: a session id and a replica id, with room to spare. */
    mcpMessageBytes: 1024,
    /**
     * A session record found gone this close to its expiry counts as expired, not evicted: Redis's TTL
     * runs on its own clock, task-session expiry on the replica's, and NTP keeps them well within a second.
     */
    expirySlackMs: 1000,
  },
  /** Task sessions kept in Redis (src/tasks/redis-store.ts): what the store writes and how hard it tries. */
  redisSessions: {
    /** How long an expired session's id still answers -32003 rather than -32002: a day covers a client coming back the next morning, at ~100 bytes of Redis per expired session. */
    tombstoneSeconds: 86_400,
    /** Tries of one change that loses its version check to another replica; each loss means another change landed, so 64 is far beyond any real contention. */
    maxAttempts: 64,
    /** Ids a sweep takes from the expiry index per round trip: large enough to sweep 100,000 sessions in ~200 trips, small enough to keep each reply well under a megabyte. */
    sweepBatch: 512,
  },
} as const;

/** The HTTP bounds a config can change (keys under `http.` in the config file; defaults in the config schema). */
export interface HttpConfigBounds {
  max_connections: number;
  idle_timeout_ms: number;
  headers_timeout_ms: number;
  request_timeout_ms: number;
  max_unread_bytes: number;
  drain_grace_ms: number;
  /**
   * Stateless requests making their answers at once; default 16. A request is a few milliseconds of
   * work and a 6 MB answer some 20 MB of short-lived heap while it is made, so 16 keep the burst of
   * 200 clients asking at once well under +256 MiB, and enough run beside a few slow ones (a store
   * call waits at most 5 s) that quick requests still pass.
   */
  max_stateless_running: number;
}

/**
 * The deployment-wide caps on what the replicas keep in a shared store (keys under `store.` in the
 * config file; defaults in the config schema). Counted in Redis, in the same script that creates,
 * so every replica sees one count; past a cap the newcomer is refused (retryable), nothing is dropped.
 */
export interface StoreConfigBounds {
  /**
   * Legacy MCP sessions (Mcp-Session-Id records) held at once; default 1024. A client holds one per
   * open conversation and an idle one lives 30 min (BOUNDS.http.sessionIdleMs), so a thousand covers
   * a team of hundreds; a record is ~1 KiB (at most BOUNDS.store.mcpSessionBytes), so Redis holds
   * about a megabyte of them, and a client that floods `initialize` fills the cap, not Redis.
   */
  max_mcp_sessions: number;
  /**
   * Task sessions (create_task) held at once; default 10000. Each is a few KiB with its messages and
   * lives sessions.timeout (an hour) after its last use, so ten thousand is far beyond what a team's
   * agents keep open, and tens of megabytes of Redis at most in normal use.
   */
  max_task_sessions: number;
}

/** The HTTP door's bounds at run time: the fixed ones plus those from config, with the descriptor limit applied. */
export interface HttpBounds {
  maxBodyBytes: number;
  maxConnections: number;
  idleTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  serverUnreadBytes: number;
  drainGraceMs: number;
  /** Stateless (2026-07-28) requests making their answers at once; the rest wait their turn. */
  statelessRunning: number;
}

/** Resolves the HTTP bounds; `descriptors` is the process's soft open-file limit when known. */
export function httpBounds(maxMessageBytes: number, http: HttpConfigBounds, descriptors: number | null): HttpBounds {
  const fdCap = descriptors === null ? Infinity : Math.max(16, descriptors - BOUNDS.http.descriptorReserve);
  return {
    maxBodyBytes: maxMessageBytes,
    maxConnections: Math.min(http.max_connections, fdCap),
    idleTimeoutMs: http.idle_timeout_ms,
    headersTimeoutMs: http.headers_timeout_ms,
    // Node requires the request timeout to be at least the header timeout.
    requestTimeoutMs: Math.max(http.request_timeout_ms, http.headers_timeout_ms),
    // Room for at least two of the largest answers, so one big answer never crowds out everyone.
    serverUnreadBytes: Math.max(http.max_unread_bytes, 2 * maxMessageBytes),
    drainGraceMs: http.drain_grace_ms,
    statelessRunning: http.max_stateless_running,
  };
}
