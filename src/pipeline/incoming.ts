// What the reader hands the processor, and the depth bound applied to a parsed message (per
// element in a batch). It never parses text and never answers anything.
import { isRecord, isValidId, type RequestId } from '../rpc/jsonrpc.js';
import { MAX_JSON_DEPTH, tooDeep } from '../rpc/json-bounds.js';

/**
 * What the reader hands over: a parsed value (with the size of its line, for the queue's byte
 * bound), or why a line could not become one. A value nested too deep is never handed over: only
 * the id it carried, and whether it was a response (those are never answered).
 */
export type Incoming =
  | { kind: 'value'; value: unknown; bytes?: number }
  | { kind: 'parse-error'; detail: string }
  | { kind: 'oversize'; bytes: number; limit: number; id?: RequestId | null }
  | { kind: 'too-deep'; id: RequestId | null; response: boolean; limit: number };

/**
 * What stands for a batch element nested too deep: the id it carried and whether it was a
 * response, nothing else (the element itself goes no further than the reader).
 */
export class TooDeep {
  constructor(readonly id: RequestId | null, readonly response: boolean, readonly limit: number = MAX_JSON_DEPTH) {}

  static of(value: unknown): TooDeep {
    const top = isRecord(value) ? value : {};
    const response = !('method' in top) && ('result' in top || 'error' in top);
    return new TooDeep(isValidId(top.id) ? top.id : null, response);
  }
}

/**
 * A parsed message as the processor receives it, with the depth bound applied: a message too deep
 * becomes its id alone; in a batch each element too deep becomes a TooDeep in its place. Any door
 * that parses a whole message (stdio lines, HTTP bodies) hands its value over through this.
 */
export function boundedValue(value: unknown, bytes: number): Incoming {
  if (Array.isArray(value)) return { kind: 'value', value: value.map((v) => (tooDeep(v) ? TooDeep.of(v) : v)), bytes };
  if (tooDeep(value)) {
    const deep = TooDeep.of(value);
    return { kind: 'too-deep', id: deep.id, response: deep.response, limit: MAX_JSON_DEPTH };
  }
  return { kind: 'value', value, bytes };
}
