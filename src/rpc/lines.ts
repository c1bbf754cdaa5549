// The pure line splitter: bytes in, complete lines out. It owns only the partial tail; it never
// parses JSON and never touches a stream.
import { BOUNDS } from '../bounds.js';

/**
 * A complete line (without its terminator), or the marker for a line that was too long with its
 * first bytes (at most HEAD_BYTES: enough to read the id a client writes first, never the line).
 */
export type LineEvent = { kind: 'line'; text: string } | { kind: 'oversize'; bytes: number; head: Buffer };

/** How much of an oversize line is kept, so its answer can carry the id written near its start. */
export const HEAD_BYTES = BOUNDS.oversizeHeadBytes;

const NEWLINE = 0x0a;
const CR = 0x0d;
const BOM = '\ufeff';

/**
 * How it works: lines are found by scanning for the newline byte before any decoding, so a UTF-8
 * character split across chunks is reassembled naturally. Pieces of an unfinished line are kept
 * as a list and joined once, when the line ends — never re-concatenated per chunk. A line longer
 * than `maxBytes` is dropped piece by piece (memory stays bounded) and reported once, when its
 * newline arrives. A trailing CR is stripped, and a BOM at the very start of the stream is removed.
 */
export interface SplitterOptions {
  /** The terminating byte: newline for stdio, form feed for Roo's IPC frames. */
  delimiter?: number;
  /** Drop a carriage return before the delimiter (CRLF senders). Default true. */
  stripCarriageReturn?: boolean;
  /** Drop a byte-order mark at the very start of the stream. Default true. */
  stripBom?: boolean;
}

export class LineSplitter {
  readonly #maxBytes: number;
  readonly #delimiter: number;
  readonly #stripCr: boolean;
  readonly #stripBom: boolean;
  #pieces: Buffer[] = [];
  #pending = 0;
  #oversize = false;
  /** The first bytes of the oversize line being skipped. */
  #head: Buffer = Buffer.alloc(0);
  #atStart = true;

  constructor(maxBytes: number, options: SplitterOptions = {}) {
    if (!(maxBytes > 0)) throw new TypeError(`maxBytes must be positive, got ${maxBytes}`);
    this.#maxBytes = maxBytes;
    this.#delimiter = options.delimiter ?? NEWLINE;
    this.#stripCr = options.stripCarriageReturn ?? true;
    this.#stripBom = options.stripBom ?? true;
  }

  /** Bytes of the unfinished line held so far (counted even while an oversize line is skipped). */
  get pendingBytes(): number { return this.#pending; }

  /** Feeds one chunk; returns the events it completes, in order. */
  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(this.#delimiter, start);
      if (nl === -1) break;
      this.#take(chunk, start, nl);
      events.push(this.#finish());
      start = nl + 1;
    }
    if (start < chunk.length) this.#take(chunk, start, chunk.length);
    return events;
  }

  /** At end of input: the unterminated last line, if any. */
  end(): LineEvent[] {
    if (this.#pending === 0 && !this.#oversize) return [];
    return [this.#finish()];
  }

  #take(chunk: Buffer, from: number, to: number): void {
    const length = to - from;
    if (length === 0) return;
    this.#pending += length;
    if (this.#oversize) return;
    if (this.#pending > this.#maxBytes) {
      this.#oversize = true;
      // A copy of the first bytes only: the line's pieces (up to maxBytes) are let go at once.
      this.#head = Buffer.concat([...this.#pieces, chunk.subarray(from, to)], Math.min(HEAD_BYTES, this.#pending));
      this.#pieces = [];
      return;
    }
    this.#pieces.push(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to));
  }

  #finish(): LineEvent {
    const bytes = this.#pending;
    const oversize = this.#oversize;
    const pieces = this.#pieces;
    this.#pieces = [];
    this.#pending = 0;
    this.#oversize = false;
    const first = this.#atStart;
    this.#atStart = false;
    if (oversize) { const head = this.#head; this.#head = Buffer.alloc(0); return { kind: 'oversize', bytes, head }; }
    const buf = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, bytes);
    const end = this.#stripCr && bytes > 0 && buf[bytes - 1] === CR ? bytes - 1 : bytes;
    let text = buf.toString('utf8', 0, end);
    if (first && this.#stripBom && text.startsWith(BOM)) text = text.slice(1);
    return { kind: 'line', text };
  }
}
