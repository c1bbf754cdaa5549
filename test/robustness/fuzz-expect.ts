// The answer a fuzz line deserves, worked out from JSON-RPC 2.0 and the framing rules alone.
// It never imports server code, so it can disagree with the server.

export type RequestId = string | number;

/**
 * What the server owes for one line. `request` and `invalid` get exactly one response with that
 * id (`invalid`: a -32600 error; its id is the line's id when that one is usable, else null);
 * `parse-error` gets one -32700 with id null; the rest get nothing.
 */
export type Expectation =
  | { kind: 'blank' }
  | { kind: 'parse-error' }
  | { kind: 'invalid'; id: RequestId | null }
  | { kind: 'request'; id: RequestId; method: string }
  | { kind: 'notification'; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'client-response' };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const usableId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

/** The depth bound the server documents for every message (and every batch element). */
export const MAX_DEPTH = 1000;

/** Deepest nesting of arrays and objects in a parsed value (a scalar is 0), without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d + 1 > deepest) deepest = d + 1;
    if (deepest > MAX_DEPTH) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return deepest;
}

/**
 * The answer a line deserves. A line is the bytes between two newlines; one trailing CR is part of
 * the terminator; bytes are read as UTF-8 (bad sequences become U+FFFD); a line of only white space
 * carries no message. Arrays are batches only on a 2025-03-26 session, so here any array is one
 * invalid message. A notification needs jsonrpc "2.0", a string method, no id member and params
 * that are absent or an object (MCP's params are always objects). A client response has no method,
 * a result or an error, and an id (null only beside an error object).
 */
export function expectationFor(line: Buffer): Expectation {
  return expectationsFor(line, false)[0]!;
}

/**
 * The answers a line deserves, one per message in it. With `batches` (a 2025-03-26 session) an
 * array is a batch: empty, or holding a readable initialize, it is one invalid message (id null); else each
 * element is judged as a line of its own would be. A message (or element) nested deeper than
 * MAX_DEPTH is not read: it is invalid with its usable id, or nothing when it is response-shaped.
 */
export function expectationsFor(line: Buffer, batches: boolean): Expectation[] {
  const body = line.length > 0 && line[line.length - 1] === 0x0d ? line.subarray(0, line.length - 1) : line;
  const text = body.toString('utf8');
  if (text.trim() === '') return [{ kind: 'blank' }];
  let v: unknown;
  try { v = JSON.parse(text); } catch { return [{ kind: 'parse-error' }]; }
  if (!Array.isArray(v) || !batches) return [messageExpectation(v)];
  // An element nested too deep is not read, so its method cannot make the batch an initialize.
  if (v.length === 0 || v.some((e) => isRecord(e) && e.method === 'initialize' && depthOf(e) <= MAX_DEPTH)) return [{ kind: 'invalid', id: null }];
  return v.map(messageExpectation);
}

function messageExpectation(v: unknown): Expectation {
  if (depthOf(v) > MAX_DEPTH) {
    const top = isRecord(v) ? v : {};
    if (!own(top, 'method') && (own(top, 'result') || own(top, 'error'))) return { kind: 'client-response' };
    return { kind: 'invalid', id: own(top, 'id') && usableId(top.id) ? top.id : null };
  }
  if (!isRecord(v)) return { kind: 'invalid', id: null };
  const id = own(v, 'id') && usableId(v.id) ? v.id : null;
  if (v.jsonrpc !== '2.0') return { kind: 'invalid', id };
  if (own(v, 'method')) {
    if (typeof v.method !== 'string') return { kind: 'invalid', id };
    if (own(v, 'params') && !isRecord(v.params)) return { kind: 'invalid', id };
    if (!own(v, 'id')) return { kind: 'notification', method: v.method, params: v.params as Record<string, unknown> | undefined };
    if (id === null) return { kind: 'invalid', id: null };
    return { kind: 'request', id, method: v.method };
  }
  const answerish = own(v, 'result') || own(v, 'error');
  if (answerish && (id !== null || (own(v, 'id') && v.id === null && isRecord(v.error)))) return { kind: 'client-response' };
  return { kind: 'invalid', id };
}
