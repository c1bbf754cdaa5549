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
/** Below this many units a batch's buffer is sized by the 3-bytes-per-unit bound instead of counted. */
const COUNT_BYTES_ABOVE = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * How it works: lines arrive already serialised (the processor checked them against the output
 * limit). The writer takes what is queued, up to the batch bounds, and encodes each line straight
 * into one buffer: no string is concatenated, so nothing larger than one message (itself within
 * server.max_message_bytes) is ever built as a string, and the buffer stays within the batch bound
 * unless it holds a single line. Small batches get a buffer sized by the UTF-8 upper bound and are
 * sent as the part written, which saves counting bytes twice; large ones are counted exactly.
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

/** The lines, each followed by a newline, in one buffer. */
export function toBuffer(first: WireLine, rest: readonly WireLine[]): Buffer {
  let units = first.length + 1;
  for (const line of rest) units += line.length + 1;
  let size = units * 3;
  if (units > COUNT_BYTES_ABOVE) {
    size = Buffer.byteLength(first, 'utf8') + 1;
    for (const line of rest) size += Buffer.byteLength(line, 'utf8') + 1;
  }
  const buf = Buffer.allocUnsafe(size);
  let at = buf.write(first, 0, 'utf8');
  buf[at++] = NEWLINE;
  for (const line of rest) {
    at += buf.write(line, at, 'utf8');
    buf[at++] = NEWLINE;
  }
  return at === size ? buf : buf.subarray(0, at);
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
