// Newline-delimited JSON framing for the client: bytes from the server's stdout in, text lines out,
// and one message object out as one line. It owns only the unfinished tail; it never parses JSON.

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * How it works: the newline byte is searched for before any UTF-8 decoding, so a multi-byte
 * character cut between two chunks is decoded only once its line is whole. Pieces of an
 * unfinished line wait in a list and are joined once. A trailing CR (a Windows server) is
 * dropped and blank lines are skipped. A line longer than `maxLineBytes` is discarded up to its
 * newline and reported as `oversize`, so a runaway server cannot grow the client's memory.
 */
export class LineDecoder {
  readonly #maxLineBytes: number;
  #pieces: Buffer[] = [];
  #pending = 0;
  #oversize = false;

  constructor(maxLineBytes = 64 * 1024 * 1024) {
    if (!(maxLineBytes > 0)) throw new TypeError(`maxLineBytes must be positive, got ${maxLineBytes}`);
    this.#maxLineBytes = maxLineBytes;
  }

  /** Feeds one chunk; returns the complete lines (or oversize markers) it finishes, in order. */
  push(chunk: Buffer): Array<string | { oversize: number }> {
    const out: Array<string | { oversize: number }> = [];
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      this.#take(chunk.subarray(start, nl));
      this.#finish(out);
      start = nl + 1;
    }
    if (start < chunk.length) this.#take(chunk.subarray(start));
    return out;
  }

  /** At end of stream: the last line if it had no terminator. */
  end(): Array<string | { oversize: number }> {
    const out: Array<string | { oversize: number }> = [];
    if (this.#pending > 0 || this.#oversize) this.#finish(out);
    return out;
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.#pending += piece.length;
    if (this.#oversize) return;
    if (this.#pending > this.#maxLineBytes) {
      this.#oversize = true;
      this.#pieces = [];
      return;
    }
    this.#pieces.push(piece);
  }

  #finish(out: Array<string | { oversize: number }>): void {
    const length = this.#pending;
    const pieces = this.#pieces;
    const oversize = this.#oversize;
    this.#pieces = [];
    this.#pending = 0;
    this.#oversize = false;
    if (oversize) {
      out.push({ oversize: length });
      return;
    }
    const buf = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, length);
    const end = length > 0 && buf[length - 1] === CR ? length - 1 : length;
    const text = buf.toString('utf8', 0, end);
    if (text.trim() !== '') out.push(text);
  }
}

/** One message as one line: JSON.stringify escapes control characters, so no raw newline remains. */
export function encodeMessage(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}
