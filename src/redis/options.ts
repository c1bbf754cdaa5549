// The client's options and their defaults from the bounds table, resolved once for both connection kinds.
// It never opens anything.
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { BOUNDS } from '../bounds.js';
import type { RedisConnectionOptions } from './socket.js';
import type { Backoff } from './reconnect.js';
import { parseRedisUrl, type RedisTarget } from './url.js';

export interface RedisClientOptions {
  /** redis://[user:pass@]host:port[/db] or rediss://… */
  url: string;
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  maxPending?: number;
  maxReplyBytes?: number;
  maxReplyDepth?: number;
  backoff?: Backoff;
  /** Extra TLS options for rediss:// (a private CA, for instance). */
  tls?: TlsOptions;
}

export interface Resolved {
  target: RedisTarget;
  connection: RedisConnectionOptions;
  backoff: Backoff;
}

/** Reads the URL (throws RedisUrlError) and fills every unset option from BOUNDS.redis. */
export function resolveOptions(options: RedisClientOptions): Resolved {
  const b = BOUNDS.redis;
  return {
    target: parseRedisUrl(options.url),
    connection: {
      connectTimeoutMs: options.connectTimeoutMs ?? b.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs ?? b.commandTimeoutMs,
      maxPending: options.maxPending ?? b.maxPending,
      maxBytes: options.maxReplyBytes ?? b.maxReplyBytes,
      maxDepth: options.maxReplyDepth ?? b.maxReplyDepth,
      ...(options.tls ? { tls: options.tls } : {}),
    },
    backoff: options.backoff ?? { minMs: b.reconnectMinMs, maxMs: b.reconnectMaxMs },
  };
}
