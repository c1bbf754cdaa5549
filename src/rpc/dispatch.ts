// The method table's types and the single place where thrown errors become wire errors.
// Handlers never build error objects; they throw RpcError subclasses and return plain results.
import { InternalError, RpcError, type WireError } from './errors.js';
import type { Params, RequestId } from './jsonrpc.js';
import type { Logger, LogLevel } from '../log.js';

/**
 * What a request of the stateless (2026-07-28) era declared about itself in params._meta. The
 * protocol layer (src/mcp/eras.ts) reads and checks it; this layer only carries it to the handler.
 */
export interface RequestEra {
  version: string;
  clientCapabilities: Record<string, unknown>;
  logLevel: LogLevel | undefined;
}

/** What a request handler may use. */
export interface RequestContext {
  id: RequestId;
  method: string;
  signal: AbortSignal;
  /** The progressToken from params._meta, when the client asked for progress. */
  progressToken: string | number | undefined;
  /** What a 2026-07-28 request declared in its _meta; null for a request of the legacy era. */
  stateless: RequestEra | null;
  /** The connection the request came in on, as its opener registered it (opaque to the pipeline). */
  readonly owner?: unknown;
}

/**
 * A result the owner already serialised (cached lists): written without re-serialising. A result
 * that is sent again and again may also carry its bytes (ASCII JSON, so one byte per character):
 * the processor then hands the writer those bytes with a per-request head, and the answer is
 * copied into the batch instead of being joined into a new string and encoded every time.
 */
export class PreSerialized {
  constructor(readonly json: string, readonly encoded?: Buffer) {}
}

export type RequestHandler = (params: Params, ctx: RequestContext) => unknown;
export type NotificationHandler = (params: Params) => void;

/** The method table: one handler per method name. */
export interface MethodTable {
  requests: ReadonlyMap<string, RequestHandler>;
  notifications: ReadonlyMap<string, NotificationHandler>;
}

/** Turns anything thrown into a wire error; unknown throws become a bland -32603 (stack to the log). */
export function toWireError(err: unknown, id: RequestId | null, method: string, log: Logger): WireError {
  if (err instanceof RpcError) return err.toWire();
  log.error(`internal error in ${method} (request id ${JSON.stringify(id)})`, err);
  return new InternalError().toWire();
}
