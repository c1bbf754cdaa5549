// The incremental, bounded RESP2 reply parser: chunks split anywhere in, whole replies out, in order.
// It never buffers more than one reply's bytes, never rescans what it has read, and knows no socket.
import { RedisProtocolError, RedisReplyBoundError, RedisReplyError } from './errors.js';
import type { RespValue } from './resp.js';

export interface ReplyBounds {
  /** Largest reply, in bytes on the wire (headers included). */
  maxBytes: number;
  /** Deepest array nesting (a flat array is depth 1). */
  maxDepth: number;
}

interface ArrayFrame { count: number; items: RespValue[] }

/**
 * Feed it chunks; it returns the replies each chunk completed. After it throws (a bound or a
 * malformed reply) its state is undefined: the connection must be closed.
 *
 * How it works: a header line (`+`, `-`, `:`, `$`, `*`) is collected up to its LF; a bulk body is
 * collected by count; arrays are a stack of frames that each completed value fills. Parts of a line
 * or body that arrive in several chunks are kept as a list and joined once.
 */
export class ReplyParser {
  readonly #bounds: ReplyBounds;
  readonly #stack: ArrayFrame[] = [];
  #line: Buffer[] = [];
  /** Bytes of the bulk body (CRLF included) still to come, or -1 when reading a header line. */
  #bulkLeft = -1;
  #bulk: Buffer[] = [];
  /** Bytes of the current top-level reply so far. */
  #replyBytes = 0;

  constructor(bounds: ReplyBounds) { this.#bounds = bounds; }

  feed(chunk: Buffer): RespValue[] {
    const done: RespValue[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.#bulkLeft >= 0) {
        const take = Math.min(this.#bulkLeft, chunk.length - i);
        this.#bulk.push(chunk.subarray(i, i + take));
        this.#bulkLeft -= take;
        i += take;
        if (this.#bulkLeft > 0) break;
        const body = Buffer.concat(this.#bulk);
        this.#bulk = [];
        this.#bulkLeft = -1;
        if (body[body.length - 2] !== 13 || body[body.length - 1] !== 10) throw new RedisProtocolError('a bulk string does not end with CRLF');
        this.#complete(body.toString('utf8', 0, body.length - 2), done);
        continue;
      }
      const lf = chunk.indexOf(10, i);
      const end = lf === -1 ? chunk.length : lf + 1;
      this.#count(end - i);
      if (lf === -1) { this.#line.push(chunk.subarray(i)); break; }
      const piece = chunk.subarray(i, lf);
      const line = this.#line.length === 0 ? piece : Buffer.concat([...this.#line, piece]);
      this.#line = [];
      i = end;
      this.#header(line, done);
    }
    return done;
  }

  #count(bytes: number): void {
    this.#replyBytes += bytes;
    if (this.#replyBytes > this.#bounds.maxBytes) throw new RedisReplyBoundError('bytes', this.#bounds.maxBytes);
  }

  #header(line: Buffer, done: RespValue[]): void {
    if (line.length < 2 || line[line.length - 1] !== 13) throw new RedisProtocolError('a header line does not end with CRLF');
    const type = line[0];
    const text = line.toString('utf8', 1, line.length - 1);
    switch (type) {
      case 0x2b: /* + */ this.#complete(text, done); return;
      case 0x2d: /* - */ this.#complete(new RedisReplyError(text), done); return;
      case 0x3a: /* : */ this.#complete(integer(text), done); return;
      case 0x24: /* $ */ {
        const len = length(text, 'a bulk string');
        if (len === -1) { this.#complete(null, done); return; }
        // Refuse at the header: a value past the bound is never read in.
        this.#count(len + 2);
        this.#bulkLeft = len + 2;
        return;
      }
      case 0x2a: /* * */ {
        const count = length(text, 'an array');
        if (count === -1) { this.#complete(null, done); return; }
        if (this.#stack.length + 1 > this.#bounds.maxDepth) throw new RedisReplyBoundError('depth', this.#bounds.maxDepth);
        if (count === 0) { this.#complete([], done); return; }
        this.#stack.push({ count, items: [] });
        return;
      }
      default:
        throw new RedisProtocolError(`unexpected type byte 0x${(type ?? 0).toString(16).padStart(2, '0')}`);
    }
  }

  #complete(value: RespValue, done: RespValue[]): void {
    let v = value;
    for (;;) {
      const top = this.#stack[this.#stack.length - 1];
      if (top === undefined) { done.push(v); this.#replyBytes = 0; return; }
      top.items.push(v);
      if (top.items.length < top.count) return;
      this.#stack.pop();
      v = top.items;
    }
  }
}

function length(text: string, what: string): number {
  if (!/^(?:-1|\d{1,15})$/.test(text)) throw new RedisProtocolError(`the length of ${what} is "${text.slice(0, 40)}"`);
  return Number(text);
}

function integer(text: string): number | bigint {
  if (!/^-?\d{1,20}$/.test(text)) throw new RedisProtocolError(`an integer reply is "${text.slice(0, 40)}"`);
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}
