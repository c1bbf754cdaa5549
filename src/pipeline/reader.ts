// The reader stage: stdin bytes → lines → parsed values on the incoming queue. It owns the input
// stream's consumption and nothing else; it never answers a message.
import type { Readable } from 'node:stream';
import { LineSplitter, type LineEvent } from './lines.js';
import type { AsyncQueue } from './queue.js';
import type { Incoming } from './processor.js';

/**
 * Reads until end of input (or until `signal` aborts), then closes the queue. Chunks are pulled
 * one at a time and every line is pushed with `await`, so a full queue stops the reading: the
 * pipe fills and the client's writes block instead of our memory growing.
 */
export async function runReader(input: Readable, incoming: AsyncQueue<Incoming>, maxBytes: number, signal: AbortSignal): Promise<void> {
  const splitter = new LineSplitter(maxBytes);
  const forward = async (events: LineEvent[]): Promise<void> => {
    for (const ev of events) {
      if (ev.kind === 'oversize') { await incoming.push({ kind: 'oversize', bytes: ev.bytes, limit: maxBytes }); continue; }
      const text = ev.text;
      if (text.trim() === '') continue; // blank lines carry no message
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        await incoming.push({ kind: 'parse-error', detail: err instanceof Error ? err.message : String(err) });
        continue;
      }
      await incoming.push({ kind: 'value', value });
    }
  };
  const stop = (): void => { input.destroy(); };
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const chunk of input) {
      await forward(splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)));
      if (signal.aborted) break;
    }
    if (!signal.aborted) await forward(splitter.end());
  } catch {
    // A destroyed or broken stdin ends the input like EOF does.
  } finally {
    signal.removeEventListener('abort', stop);
    incoming.close();
  }
}
