// Newline-delimited JSON framing for the client: bytes from the server's stdout in, text lines out,
// and one message object out as one line. It owns only the unfinished tail; it never parses JSON.

import { LineSplitter, type LineEvent } from '../rpc/lines.js';

/**
 * How it works: the pure splitter the server reads stdin with does the byte work (newline found
 * before decoding, pieces joined once, CR dropped, runaway lines discarded); this adapter skips
 * blank lines and reports a discarded line as `oversize`, so a runaway server cannot grow the
 * client's memory.
 */
export class LineDecoder {
  readonly #splitter: LineSplitter;

  constructor(maxLineBytes = 64 * 1024 * 1024) {
    if (!(maxLineBytes > 0)) throw new TypeError(`maxLineBytes must be positive, got ${maxLineBytes}`);
    this.#splitter = new LineSplitter(maxLineBytes);
  }

  /** Feeds one chunk; returns the complete lines (or oversize markers) it finishes, in order. */
  push(chunk: Buffer): Array<string | { oversize: number }> {
    return convert(this.#splitter.push(chunk));
  }

  /** At end of stream: the last line if it had no terminator. */
  end(): Array<string | { oversize: number }> {
    return convert(this.#splitter.end());
  }
}

function convert(events: LineEvent[]): Array<string | { oversize: number }> {
  const out: Array<string | { oversize: number }> = [];
  for (const ev of events) {
    if (ev.kind === 'oversize') out.push({ oversize: ev.bytes });
    else if (ev.text.trim() !== '') out.push(ev.text);
  }
  return out;
}

/** One message as one line: JSON.stringify escapes control characters, so no raw newline remains. */
export function encodeMessage(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}
