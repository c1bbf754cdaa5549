// The writer stage: the only code that writes protocol output. One line per message, queued lines
// copied into one Buffer per batch and written at once; it waits for 'drain' whenever asked to.
import type { Writable } from 'node:stream';
import type { AsyncQueue } from './queue.js';
import type { WireLine } from './outbound.js';

/**
 * A batch holds at most this many lines and this many UTF-16 units of text (so at most three
 * times as many bytes); a single larger line goes alone.
 */
const MAX_BATCH_LINES = 256;
export const MAX_BATCH_UNITS = 512 * 1024;
const NEWLINE = 0x0a;
const CLOSE_BRACE = 0x7d;

/**
 * How it works: lines arrive already serialised (the processor checked them against the output
 * limit). The writer takes what is queued, up to the batch bounds, and hands the stream one Buffer
 * per batch. The lines of a batch are joined first, which is the cheapest way to encode many
 * short strings, and a batch is at most MAX_BATCH_UNITS long; a line at least that long is never
 * joined with anything but encoded alone into a buffer of its exact size. So no string longer
 * than the batch bound is ever built here, whatever the messages.
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
    const rest = outgoing.takeAvailable(MAX_BATCH_LINES - 1, MAX_BATCH_UNITS - first.length);
    // Answers to one input chunk are produced in one turn of the event loop, a few at a time;
    // corking until the turn ends sends them in one system call instead of one each.
    if (!output.writableCorked) {
      output.cork();
      process.nextTick(() => output.uncork());
    }
    if (!output.write(toBuffer(first, rest))) await waitDrain(output);
  }
  if (!broken && output.writableNeedDrain) await waitDrain(output);
}

/**
 * The lines, each followed by a newline, in one buffer. Each line is encoded on its own into a
 * buffer sized for the worst case (3 bytes per UTF-16 unit) and the result is the part written:
 * joining the lines first would turn a batch of ASCII answers (cached ones are kept ASCII) into a
 * two-byte string as soon as one fresh answer carries an emoji, and the whole batch would then be
 * transcoded the slow way (22% of a throughput profile). Unused room is never touched.
 */
export function toBuffer(first: WireLine, rest: readonly WireLine[]): Buffer {
  if (rest.length === 0 && first.length >= MAX_BATCH_UNITS && typeof first === 'string') {
    const size = Buffer.byteLength(first, 'utf8');
    const buf = Buffer.allocUnsafe(size + 1);
    buf.write(first, 0, 'utf8');
    buf[size] = NEWLINE;
    return buf;
  }
  let bound = bytesBound(first) + 1;
  for (const line of rest) bound += bytesBound(line) + 1;
  const buf = Buffer.allocUnsafe(bound);
  let at = put(buf, first, 0);
  buf[at++] = NEWLINE;
  for (const line of rest) {
    at = put(buf, line, at);
    buf[at++] = NEWLINE;
  }
  return buf.subarray(0, at);
}

/** UTF-8 needs at most 3 bytes per UTF-16 unit; a spliced body is ASCII, one byte each. */
const bytesBound = (line: WireLine): number =>
  typeof line === 'string' ? line.length * 3 : line.head.length * 3 + line.body.length + 1;

/** Writes one line at `at`; a spliced line's shared body is copied as bytes, never re-encoded. */
function put(buf: Buffer, line: WireLine, at: number): number {
  if (typeof line === 'string') return at + buf.write(line, at);
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
