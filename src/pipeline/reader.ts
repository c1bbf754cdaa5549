// The reader stage: stdin bytes → lines → parsed values on the incoming queue. It owns the input
// stream's consumption and nothing else; it never answers a message.
import type { Readable } from 'node:stream';
import { LineSplitter, type LineEvent } from '../rpc/lines.js';
import type { AsyncQueue } from './queue.js';
import { boundedValue, type Incoming } from './incoming.js';
import { leadingId } from '../rpc/leading-id.js';
import { MAX_JSON_DEPTH } from '../rpc/json-bounds.js';

/**
 * Turns one line event into what the processor receives (undefined for a blank line). A value
 * nested deeper than MAX_JSON_DEPTH goes no further than here: handlers, logs and stored sessions
 * all use recursive code that such a value could overflow. In a batch the bound holds per element,
 * so one deep element costs only its own answer; the line as a whole is bounded by its size (the
 * splitter's limit), and each element's depth walk stops at the bound.
 */
function toIncoming(ev: LineEvent, maxBytes: number): Incoming | undefined {
  if (ev.kind === 'oversize') return { kind: 'oversize', bytes: ev.bytes, limit: maxBytes, id: leadingId(ev.head.toString('utf8')) };
  if (ev.text.trim() === '') return undefined; // blank lines carry no message
  let value: unknown;
  try {
    value = JSON.parse(ev.text);
  } catch (err) {
    return { kind: 'parse-error', detail: err instanceof Error ? err.message : String(err) };
  }
  // Each level of nesting takes at least one bracket, so a line shorter than the cap cannot pass it.
  if (ev.text.length <= MAX_JSON_DEPTH) return { kind: 'value', value, bytes: ev.text.length };
  return boundedValue(value, ev.text.length);
}

/**
 * Reads until end of input (or until `signal` aborts), then closes the queue. Lines go to the
 * queue without waiting while it has room; when it is full, stdin is paused until every line of
 * the chunk is queued, so the pipe fills and the client's writes block instead of our memory growing.
 */
export function runReader(input: Readable, incoming: AsyncQueue<Incoming>, maxBytes: number, signal: AbortSignal): Promise<void> {
  const splitter = new LineSplitter(maxBytes);
  return new Promise((resolve) => {
    let backlog: Promise<void> = Promise.resolve();
    let waiting = false;
    let done = false;
    const offer = (events: LineEvent[]): void => {
      for (let i = 0; i < events.length; i++) {
        const item = toIncoming(events[i]!, maxBytes);
        if (item === undefined) continue;
        if (!waiting && incoming.tryPush(item)) continue;
        // Full: keep order by queueing this and the rest behind the pending pushes.
        waiting = true;
        input.pause();
        const rest = [item, ...events.slice(i + 1).map((ev) => toIncoming(ev, maxBytes)).filter((x): x is Incoming => x !== undefined)];
        backlog = backlog.then(async () => {
          for (const r of rest) await incoming.push(r).catch(() => undefined);
        });
        const mine = backlog;
        void mine.then(() => {
          if (backlog !== mine) return;
          waiting = false;
          if (!done) input.resume();
        });
        return;
      }
    };
    const finish = (): void => {
      if (done) return;
      done = true;
      input.off('data', onData);
      if (!signal.aborted) offer(splitter.end());
      void backlog.then(() => { incoming.close(); resolve(); });
    };
    const onData = (chunk: Buffer | string): void => {
      offer(splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    };
    const stop = (): void => { finish(); input.destroy(); };
    if (signal.aborted) { stop(); return; }
    signal.addEventListener('abort', stop, { once: true });
    input.on('data', onData);
    input.once('end', finish);
    input.once('close', finish);
    input.once('error', finish); // a broken stdin ends the input like EOF does
  });
}
