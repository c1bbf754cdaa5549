// HTTP framing helpers shared by both eras: reading a bounded body, answering with JSON, and
// telling what an outgoing message is (answer, notification, server request). Never dispatches.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { lineText, type WireLine } from '../pipeline/outbound.js';
import { isRecord, type RequestId } from '../rpc/jsonrpc.js';

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) { super(`request body exceeds ${limit} bytes (server.max_message_bytes)`); }
}

/**
 * The body as text, at most `limit` bytes. A longer body is refused at once (413 material), but
 * the rest of it is still read and dropped, so a client that is still writing gets its answer
 * instead of a reset (Node's request timeout bounds how long). Rejects if the client goes away.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => { onBody(req, limit, (err, text) => (err === null ? resolve(text!) : reject(err))); });
}

/**
 * readBody with a callback, called exactly once: for a handler that answers as soon as the body is
 * in, without a promise and the microtasks behind it (the hook endpoint, per tool call of an agent).
 */
export function onBody(req: IncomingMessage, limit: number, done: (err: Error | null, text?: string) => void): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) { req.resume(); done(new BodyTooLarge(limit)); return; }
  let first: Buffer | null = null;
  let rest: Buffer[] | null = null;
  let size = 0;
  let over = false;
  let called = false;
  const finish = (err: Error | null, text?: string): void => { if (!called) { called = true; done(err, text); } };
  req.on('data', (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > limit) { over = true; first = null; rest = null; finish(new BodyTooLarge(limit)); return; }
    if (first === null) first = chunk;
    else (rest ??= [first]).push(chunk);
  });
  req.on('end', () => {
    if (over) return;
    finish(null, rest !== null ? Buffer.concat(rest).toString('utf8') : first === null ? '' : first.toString('utf8'));
  });
  req.on('error', (err) => finish(err));
  req.on('aborted', () => finish(new Error('request aborted')));
}

/** The body is declared JSON: `application/json`, parameters (charset) allowed, any case. */
export function isJsonBody(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && /^\s*application\/json\s*(;|$)/i.test(type);
}

/** One complete JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}): void {
  if (res.headersSent) { res.end(); return; }
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** A JSON-RPC error as an HTTP answer (id null when the request had none or could not be read). */
export function sendRpcError(res: ServerResponse, status: number, id: RequestId | null, code: number, message: string, data?: unknown, headers: Record<string, string> = {}): void {
  const error = data === undefined ? { code, message } : { code, message, data };
  sendJson(res, status, JSON.stringify({ jsonrpc: '2.0', id, error }), headers);
}

/** What the router needs to know about one outgoing message. */
export interface Described {
  /** The message as the writer encoded it: a successful answer keeps its bytes (no copy as a string). */
  text: string | Buffer;
  /** An answer to the client's request with this id. */
  answerTo?: RequestId;
  /** A notification (method set, no id) or a server→client request (method and id). */
  method?: string;
  progressToken?: string | number;
  /** Error code of an answer, for the HTTP status of the stateless era. */
  errorCode?: number;
}

const ANSWER_HEAD = /^\{"jsonrpc":"2\.0","id":(-?\d+|"(?:[^"\\]|\\.)*"),"(result|error)":/;

/** How much of a line is read to recognise a successful answer by its head. */
const HEAD_BYTES = 512;

/** Reads what routing needs off one serialised line: a successful answer by its head alone. */
export function describe(line: WireLine): Described {
  if (Buffer.isBuffer(line)) {
    const head = ANSWER_HEAD.exec(line.toString('utf8', 0, Math.min(line.length, HEAD_BYTES)));
    if (head && head[2] === 'result') return { text: line, answerTo: JSON.parse(head[1]!) as RequestId };
  }
  const text = lineText(line);
  const head = ANSWER_HEAD.exec(text);
  if (head && head[2] === 'result') return { text, answerTo: JSON.parse(head[1]!) as RequestId };
  const value: unknown = JSON.parse(text);
  const out: Described = { text };
  if (!isRecord(value)) return out;
  if (typeof value.method === 'string') {
    out.method = value.method;
    const token = isRecord(value.params) ? value.params.progressToken : undefined;
    if (typeof token === 'string' || typeof token === 'number') out.progressToken = token;
    return out;
  }
  if (typeof value.id === 'string' || typeof value.id === 'number') out.answerTo = value.id;
  if (isRecord(value.error) && typeof value.error.code === 'number') out.errorCode = value.error.code;
  return out;
}

/** What the client accepts: JSON answers, SSE streams (a missing Accept means both). */
export function accepts(req: IncomingMessage): { json: boolean; sse: boolean } {
  const a = req.headers.accept;
  if (typeof a !== 'string' || a.trim() === '') return { json: true, sse: true };
  const any = a.includes('*/*');
  return { json: any || a.includes('application/json'), sse: any || a.includes('text/event-stream') };
}

/** A header's single value, trimmed (repeated headers are joined by Node with ", "). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v.trim() : undefined;
}
