// JSON-RPC 2.0 wire shapes and the one function that classifies an incoming value. It never
// answers anything itself: it says what a value is, or which -32600 it deserves.
import { InvalidRequestError, type WireError } from './errors.js';

export type RequestId = string | number;
export type Params = Record<string, unknown>;

export interface Request { id: RequestId; method: string; params: Params | undefined }
export interface Notification { method: string; params: Params | undefined }
export interface ClientResponse { id: RequestId | null; result?: unknown; error?: WireError }

export type Classified =
  | { kind: 'request'; request: Request }
  | { kind: 'notification'; notification: Notification }
  | { kind: 'response'; response: ClientResponse }
  | { kind: 'invalid'; id: RequestId | null; error: InvalidRequestError };

/** A message to send: an object, or a line already serialised by its owner (with the id it answers). */
export type Outgoing = object | { readonly raw: string | SplicedLine; readonly id?: RequestId };

/**
 * An answer line in two parts: a head of its own (`{"jsonrpc":"2.0","id":…,"result":`) and a
 * shared, already encoded ASCII body (the cached result), followed by the closing brace. `length`
 * counts UTF-16 units, as a string's does, so queues weigh both kinds alike.
 */
export class SplicedLine {
  constructor(readonly head: string, readonly body: Buffer) {}
  get length(): number { return this.head.length + this.body.length + 1; }
  toString(): string { return `${this.head}${this.body.toString('latin1')}}`; }
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const has = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** Ids are strings or integers (safe ones: larger numbers lost precision in JSON.parse). */
export const isValidId = (id: unknown): id is RequestId =>
  typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && !Number.isSafeInteger(v)) return Number.isInteger(v) ? 'an integer beyond 2^53' : 'a fractional number';
  return typeof v;
}

function invalid(id: RequestId | null, message: string): Classified {
  return { kind: 'invalid', id, error: new InvalidRequestError('Invalid Request', message) };
}

/** Classifies one parsed JSON value (not an array: batches are split by the processor). */
export function classify(value: unknown): Classified {
  if (!isRecord(value)) return invalid(null, `expected a JSON-RPC object, got ${describeType(value)}`);
  const rawId = has(value, 'id') ? value.id : undefined;
  const id = isValidId(rawId) ? rawId : null;
  if (value.jsonrpc !== '2.0') return invalid(id, `"jsonrpc" must be "2.0", got ${JSON.stringify(value.jsonrpc) ?? 'nothing'}`);
  if (has(value, 'method')) {
    if (typeof value.method !== 'string') return invalid(id, `"method" must be a string, got ${describeType(value.method)}`);
    if (has(value, 'params') && !isRecord(value.params)) {
      return invalid(id, `"params" must be an object, got ${describeType(value.params)}`);
    }
    const params = value.params as Params | undefined;
    if (!has(value, 'id')) return { kind: 'notification', notification: { method: value.method, params } };
    if (id === null) return invalid(null, `"id" must be a string or an integer, got ${describeType(rawId)}`);
    return { kind: 'request', request: { id, method: value.method, params } };
  }
  // A response is never answered, not even an error response whose id could not be read.
  if ((id !== null || (rawId === null && isRecord(value.error))) && (has(value, 'result') || has(value, 'error'))) {
    const error = isRecord(value.error) ? (value.error as unknown as WireError) : undefined;
    return { kind: 'response', response: { id, result: value.result, ...(error ? { error } : {}) } };
  }
  return invalid(id, 'a request needs a "method" string');
}
