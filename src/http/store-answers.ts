// What the shared store's failures and misses mean for an HTTP client of a legacy session: the status,
// the headers and the JSON-RPC error of each, and the 404 text for each reason a session is gone. It sends nothing.
import { BOUNDS } from '../bounds.js';
import type { SharedStore } from '../redis/shared-store.js';
import { RedisError } from '../redis/errors.js';
import { ERROR_CODES, InvalidRequestError, RpcError, SessionStoreError } from '../rpc/errors.js';
import { redisFailure } from '../tasks/redis-replies.js';
import { McpSessionLimitError, McpSessionsFullError, type McpGone } from './session-records.js';

/** What a failure of the store means for the client: the HTTP status and the JSON-RPC error. */
export function storeFailure(store: SharedStore, timeoutSeconds: number, doing: string, err: unknown): { status: number; error: RpcError; headers: Record<string, string> } {
  if (err instanceof RpcError) return { status: 400, error: err, headers: {} };
  if (err instanceof McpSessionLimitError) return { status: 400, error: new InvalidRequestError(`Invalid Request: ${err.message}`), headers: {} };
  if (err instanceof McpSessionsFullError) {
    // Retry-After: when the session first in line expires (unless it is used meanwhile), at least a second.
    const wait = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
    return {
      status: 503, headers: { 'retry-after': String(wait) },
      error: new RpcError(ERROR_CODES.INVALID_REQUEST, `too many sessions: ${err.message}; end one with DELETE or retry in ${wait} s`, {
        message: `${err.message}; idle sessions expire ${BOUNDS.http.sessionIdleMs / 60_000} minutes after their last request`,
        error_type: 'session_limit', retryable: true, max_sessions: err.max, setting: 'store.max_mcp_sessions', retry_after_s: wait,
      }),
    };
  }
  // Redis's own failures read as the task tools' do (src/tasks/redis-replies.ts); anything else
  // (data not ours) cannot be retried away.
  const ctx = { address: store.shownUrl, prefix: store.prefix, timeoutSeconds };
  if (err instanceof RedisError) {
    const error = redisFailure(ctx, doing, err);
    return err.retryable ? { status: 503, error, headers: { 'retry-after': String(BOUNDS.http.retryAfterS) } } : { status: 500, error, headers: {} };
  }
  const message = (err as Error).message;
  return {
    status: 500, headers: {},
    error: new SessionStoreError(`The session store (Redis at ${store.shownUrl}) cannot be used: ${doing} failed (${message})`, {
      message: `${doing}: ${message}`, store: 'redis', redis_address: store.shownUrl, operation: doing, retryable: false,
      recovery_suggestions: ['Check the Redis server and what else writes under the key prefix'],
    }),
  };
}

export const NOT_FOUND = 'Session not found: it ended or never existed; initialize a new one';

/** The 404 text for a session without a record, by why (McpSessionRecords.why). */
export const GONE: Record<McpGone, string> = {
  expired: `Session not found: it expired after ${BOUNDS.http.sessionIdleMs / 60_000} minutes without a request; initialize a new one`,
  evicted: 'Session not found: its record vanished from the shared store before it expired (Redis dropped it to free memory, or something deleted it); initialize a new one',
  lost_in_restart: 'Session not found: the shared store was restarted and lost its data, this session with it; initialize a new one',
  unknown: NOT_FOUND,
  live: NOT_FOUND,
};
