// The writer stage: the only code that writes protocol output. One line per message, queued lines
// copied into one Buffer per batch and written at once; it waits for 'drain' whenever asked to.
import type { Writable } from 'node:stream';
import type { AsyncQueue } from './queue.js';
import type { WireLine } from './outbound.js';

/** A batch holds at most this many lines and about this many bytes; a single larger line goes alone. */
const MAX_BATCH_LINES = 256;
export const MAX_BATCH_BYTES = 512 * 1024;
const NEWLINE = 0x0a;
const NEWLINE_BYTES = Buffer.from('\n');
const CLOSE_BRACE = 0x7d;

/**
 * How it works: lines arrive already serialised and encoded (the processor checked them against
 * the output limit). The writer takes what is queued, up to the batch bounds, and hands the stream
 * one Buffer per batch, the lines copied into it with their newlines. A line at least as long as
 * the batch bound goes alone, as it is, followed by its newline, so nothing large is ever copied.
 *
 * Resolves when the queue is closed and everything was handed to the stream, or the stream broke.
 * `giveUp` (at shutdown, when the client stopped reading) stops waiting for 'drain' and discards
 * what is left, so producers are never stuck behind a client that will not read.
 */
export async function runWriter(outgoing: AsyncQueue<WireLine>, output: Writable, giveUp?: AbortSignal): Promise<void> {
  let broken = false;
  const onError = (): void => { broken = true; };
  output.on('error', onError); // EPIPE: the client went away; stop quietly
  giveUp?.addEventListener('abort', () => { broken = true; output.emit('drain'); }, { once: true });
  for (;;) {
    const first = await outgoing.shift();
    if (first === undefined) break;
    if (broken) continue; // keep draining so producers never block on a dead client
    const rest = outgoing.takeAvailable(MAX_BATCH_LINES - 1, MAX_BATCH_BYTES - first.length);
    // Answers to one input chunk are produced in one turn of the event loop, a few at a time;
    // corking until the turn ends sends them in one system call instead of one each.
    if (!output.writableCorked) {
      output.cork();
      process.nextTick(() => output.uncork());
    }
    const alone = rest.length === 0 && Buffer.isBuffer(first) && first.length >= MAX_BATCH_BYTES;
    if (alone) output.write(first);
    if (!output.write(alone ? NEWLINE_BYTES : toBuffer(first, rest))) await waitDrain(output);
  }
  if (!broken && output.writableNeedDrain) await waitDrain(output);
}

/** The lines, each followed by a newline, copied into one buffer (of which the written part is returned). */
export function toBuffer(first: WireLine, rest: readonly WireLine[]): Buffer {
  let size = bound(first) + 1;
  for (const line of rest) size += bound(line) + 1;
  const buf = Buffer.allocUnsafe(size);
  let at = put(buf, first, 0);
  buf[at++] = NEWLINE;
  for (const line of rest) {
    at = put(buf, line, at);
    buf[at++] = NEWLINE;
  }
  return buf.subarray(0, at);
}

/** Room for a line: its bytes; a spliced line's head may be any UTF-16 text (a string id), up to 3 bytes a unit. */
const bound = (line: WireLine): number => (Buffer.isBuffer(line) ? line.length : line.head.length * 3 + line.body.length + 1);

/** Copies one line's bytes at `at`; a spliced line is its head, its shared body and the closing brace. */
function put(buf: Buffer, line: WireLine, at: number): number {
  if (Buffer.isBuffer(line)) return at + line.copy(buf, at);
  at += buf.write(line.head, at);
  at += line.body.copy(buf, at);
  buf[at++] = CLOSE_BRACE;
  return at;
}

function waitDrain(output: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      output.off('drain', done); output.off('close', done); output.off('error', done);
      resolve();
    };
    output.on('drain', done); output.on('close', done); output.on('error', done);
  });
}
