// What differs between the legacy (initialize) era and the stateless 2026-07-28 era, as tables and
// pure functions: method availability, per-request _meta rules, result decoration. No state here.
import {
  InvalidParamsError, InvalidRequestError, MethodNotFoundError, MissingRequiredClientCapabilityError, type RpcError, ERROR_CODES,
  UnsupportedProtocolVersionError, quoteName,
} from '../rpc/errors.js';
import { isRecord, type Params } from '../rpc/jsonrpc.js';
import { PreSerialized, type RequestEra } from '../rpc/dispatch.js';
import { parseLogLevel, type LogLevel } from '../log.js';

export type Era = 'legacy' | 'stateless';

/** Revisions served without a handshake (request by request). The legacy ones are in lifecycle.ts. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export type ModernVersion = (typeof MODERN_VERSIONS)[number];

/** The reserved _meta keys of the stateless era. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** Our extension: Roo IPC events on a subscriptions/listen stream (a filter key and a client capability). */
export const ROO_EVENTS_EXTENSION = 'io.github.roo-modes/roo-events';

/**
 * Which client→server methods each era serves. One table: the processor's admission, the docs and
 * the tests read it. A method missing here is unknown in both eras (-32601).
 */
export const ERA_METHODS: Readonly<Record<string, { legacy: boolean; stateless: boolean }>> = {
  initialize: { legacy: true, stateless: false },
  ping: { legacy: true, stateless: false },
  'logging/setLevel': { legacy: true, stateless: false },
  'resources/subscribe': { legacy: true, stateless: false },
  'resources/unsubscribe': { legacy: true, stateless: false },
  'server/discover': { legacy: false, stateless: true },
  'subscriptions/listen': { legacy: false, stateless: true },
  'tools/list': { legacy: true, stateless: true },
  'tools/call': { legacy: true, stateless: true },
  'resources/list': { legacy: true, stateless: true },
  'resources/templates/list': { legacy: true, stateless: true },
  'resources/read': { legacy: true, stateless: true },
  'prompts/list': { legacy: true, stateless: true },
  'prompts/get': { legacy: true, stateless: true },
  'completion/complete': { legacy: true, stateless: true },
  // Client notifications (notifications/cancelled is the processor's own, in both eras).
  'notifications/initialized': { legacy: true, stateless: false },
  'notifications/roots/list_changed': { legacy: true, stateless: false },
};

export const servedIn = (era: Era, method: string): boolean => ERA_METHODS[method]?.[era] === true;

/**
 * Caching hints (ttlMs, cacheScope) of the cacheable results. One table. Catalogue-derived results
 * change when a mode file is edited: the watcher reloads within ~75 ms and tells listening clients
 * at once, so the TTL only bounds how stale a client that does not listen may be (5 s). They hold
 * the user's and the project's modes, so they are "private". The tool list, the templates and
 * discovery are fixed for the life of the process and the same for every user: "public", 1 hour.
 * (An MCP Apps client is also listed the modes view's tools: its capabilities, in the request's
 * _meta, are among the parameters that make the cache key.)
 */
const FIXED = { ttlMs: 3_600_000, cacheScope: 'public' } as const;
const CATALOGUE = { ttlMs: 5_000, cacheScope: 'private' } as const;
export const CACHE_HINTS: Readonly<Record<string, { ttlMs: number; cacheScope: 'public' | 'private' }>> = {
  'server/discover': FIXED,
  'tools/list': FIXED,
  'resources/templates/list': FIXED,
  'resources/list': CATALOGUE,
  'resources/read': CATALOGUE,
  'prompts/list': CATALOGUE,
};

/** A request claims the stateless era by its method or by naming a protocol version in _meta. */
export function claimsStateless(method: string, params: Params | undefined): boolean {
  if (method === 'server/discover' || method === 'subscriptions/listen') return true;
  const meta = params?._meta;
  return isRecord(meta) && Object.prototype.hasOwnProperty.call(meta, META.protocolVersion);
}

/**
 * Decides how a request is served on a connection whose era is `era` (null: not yet decided).
 * Returns the request's stateless context, null to serve it the legacy way, or the error to answer.
 */
export function admit(era: Era | null, legacyVersion: string, method: string, params: Params | undefined): RequestEra | null | RpcError {
  // initialize is legacy by nature: before any era it is the legacy handshake, whatever its params.
  if (era === 'legacy' || (era === null && (method === 'initialize' || !claimsStateless(method, params)))) {
    if (era === 'legacy' && claimsStateless(method, params)) {
      return new InvalidRequestError('Invalid Request: this connection speaks the legacy protocol', {
        message: `initialize chose ${legacyVersion} for this connection; ${method} in the 2026-07-28 (stateless) era needs a new connection`,
        connection_protocol_version: legacyVersion,
      });
    }
    return null;
  }
  if (method === 'initialize') {
    return new InvalidRequestError('Invalid Request: this connection speaks the stateless protocol', {
      message: `this connection speaks ${MODERN_VERSIONS.join(', ')} (every request carries its _meta); initialize belongs to the legacy revisions and needs a new connection`,
      supported: [...MODERN_VERSIONS],
    });
  }
  if (!servedIn('stateless', method)) {
    return new MethodNotFoundError(method, ERA_METHODS[method]?.legacy ? `${method} is not part of protocol 2026-07-28 (legacy revisions only)` : undefined);
  }
  return readRequestMeta(method, params);
}

/** Checks the per-request _meta of a stateless request: -32602 when malformed, -32022 for a version we do not serve. */
export function readRequestMeta(method: string, params: Params | undefined): RequestEra | RpcError {
  const meta = params?._meta;
  const missing = (key: string, expected: string): InvalidParamsError => new InvalidParamsError(`Invalid params: ${method} needs params._meta["${key}"]`, {
    message: `params._meta["${key}"]: expected ${expected} (required on every 2026-07-28 request)`, key,
  });
  if (!isRecord(meta)) return missing(META.protocolVersion, 'a protocol version string');
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') return missing(META.protocolVersion, 'a protocol version string');
  const caps = meta[META.clientCapabilities];
  if (!isRecord(caps)) return missing(META.clientCapabilities, 'a ClientCapabilities object');
  if (!(MODERN_VERSIONS as readonly string[]).includes(version)) {
    return new UnsupportedProtocolVersionError(version.length > 64 ? `${version.slice(0, 64)}…` : version, MODERN_VERSIONS);
  }
  const rawLevel = meta[META.logLevel];
  let logLevel: LogLevel | undefined;
  if (rawLevel !== undefined) {
    // Exact names only: the wire level is an enum, unlike the config's case-insensitive names.
    logLevel = typeof rawLevel === 'string' && parseLogLevel(rawLevel) === rawLevel ? rawLevel as LogLevel : undefined;
    if (logLevel === undefined) {
      return new InvalidParamsError('Invalid params: unknown log level', {
        message: `params._meta["${META.logLevel}"]: expected one of debug, info, notice, warning, error, critical, alert, emergency`,
        key: META.logLevel,
      });
    }
  }
  return { version: version as ModernVersion, clientCapabilities: caps, logLevel };
}

/** -32021 unless the request declared the extension `name` in its client capabilities. */
export function requireExtension(req: RequestEra, name: string, why: string): void {
  const ext = req.clientCapabilities.extensions;
  if (isRecord(ext) && isRecord(ext[name])) return;
  throw new MissingRequiredClientCapabilityError(`Missing required client capability: ${why}`, { extensions: { [name]: {} } });
}

/**
 * The decoration of `method`'s stateless results: resultType, our identity in _meta and, for
 * cacheable methods, ttlMs and cacheScope. Built once per method; results serialised by their
 * owner are extended as text (they never carry these keys).
 */
export function resultDecoration(method: string, serverInfo: { name: string; version: string }): (result: unknown) => unknown {
  const hints = CACHE_HINTS[method];
  const head = `"resultType":"complete","_meta":{"${META.serverInfo}":${JSON.stringify(serverInfo)}}${hints ? `,"ttlMs":${hints.ttlMs},"cacheScope":"${hints.cacheScope}"` : ''}`;
  return (result) => {
    if (result instanceof PreSerialized) {
      const body = result.json.slice(1).trimStart();
      return new PreSerialized(`{${head}${body.startsWith('}') ? '' : ','}${body}`);
    }
    const object = isRecord(result) ? result : {};
    const meta = isRecord(object._meta) ? object._meta : {};
    return {
      resultType: 'complete',
      ...object,
      _meta: { ...meta, [META.serverInfo]: serverInfo },
      ...(hints && !('ttlMs' in object) ? hints : {}),
    };
  };
}

/**
 * A resource that cannot be read: the legacy error as is (-32001 unknown mode, -32004 bad URI), or
 * in the stateless era -32602 with data.uri, as 2026-07-28 requires, keeping the legacy details.
 */
export function resourceError(stateless: boolean, uri: string, legacy: RpcError): RpcError {
  if (!stateless) return legacy;
  const data = isRecord(legacy.data) ? legacy.data : { message: legacy.message };
  return new InvalidParamsError(legacy.code === ERROR_CODES.MODE_NOT_FOUND ? `Resource not found: ${quoteName(uri)}. ${legacy.message}` : legacy.message, {
    ...data, uri: uri.length > 200 ? `${uri.slice(0, 200)}…` : uri,
  });
}
