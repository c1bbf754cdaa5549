// The writer stage: the only code that writes protocol output. One line per message, several
// queued lines joined into one write, and it waits for 'drain' whenever the stream asks it to.
import type { Writable } from 'node:stream';
import type { AsyncQueue } from './queue.js';
import { serialize } from './processor.js';
import type { Outgoing } from '../rpc/jsonrpc.js';

const MAX_BATCH = 256;

/**
 * Resolves when the queue is closed and everything was handed to the stream, or the stream broke.
 * `giveUp` (at shutdown, when the client stopped reading) stops waiting for 'drain' and discards
 * what is left, so producers are never stuck behind a client that will not read.
 */
export async function runWriter(outgoing: AsyncQueue<Outgoing>, output: Writable, giveUp?: AbortSignal): Promise<void> {
  let broken = false;
  const onError = (): void => { broken = true; };
  output.on('error', onError); // EPIPE: the client went away; stop quietly
  giveUp?.addEventListener('abort', () => { broken = true; output.emit('drain'); }, { once: true });
  for (;;) {
    const first = await outgoing.shift();
    if (first === undefined) break;
    if (broken) continue; // keep draining so producers never block on a dead client
    const rest = outgoing.takeAvailable(MAX_BATCH);
    let text = serialize(first) + '\n';
    for (const m of rest) text += serialize(m) + '\n';
    // Answers to one input chunk are produced in one turn of the event loop, a few at a time;
    // corking until the turn ends sends them in one system call instead of one each.
    if (!output.writableCorked) {
      output.cork();
      process.nextTick(() => output.uncork());
    }
    if (!output.write(text)) await waitDrain(output);
  }
  if (!broken && output.writableNeedDrain) await waitDrain(output);
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
