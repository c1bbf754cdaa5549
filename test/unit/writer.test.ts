// Unit tests of the writer stage (src/pipeline/writer.ts): byte-bounded batches, one Buffer per
// write, lines intact (multi-byte text included), and nothing concatenated past the batch bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { AsyncQueue } from '../../src/pipeline/queue.js';
import { MAX_BATCH_BYTES, runWriter, toBuffer } from '../../src/pipeline/writer.js';
import { lineText, type WireLine } from '../../src/pipeline/outbound.js';
import { SplicedLine } from '../../src/rpc/jsonrpc.js';

const line = (text: string): WireLine => Buffer.from(text);

/** A stream that keeps every chunk written to it. */
function sink(): { stream: Writable; chunks: unknown[] } {
  const chunks: unknown[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { chunks.push(chunk); done(); } });
  return { stream, chunks };
}

test('toBuffer writes each line and its newline into one buffer of exactly their size', () => {
  const buf = toBuffer(line('{"a":"é"}'), [line('{"b":"😀"}'), line('{}')]);
  assert.equal(buf.toString('utf8'), '{"a":"é"}\n{"b":"😀"}\n{}\n');
  assert.equal(buf.length, Buffer.byteLength('{"a":"é"}\n{"b":"😀"}\n{}\n'));
});

test('toBuffer copies a spliced line\'s shared body after its head, closes it, and leaves the body untouched', () => {
  const body = Buffer.from('{"text":"\\u2713 ok"}', 'latin1');
  const spliced = new SplicedLine('{"jsonrpc":"2.0","id":"ü","result":', body);
  const buf = toBuffer(line('{"a":"😀"}'), [spliced, line('{}'), spliced]);
  const text = `{"jsonrpc":"2.0","id":"ü","result":{"text":"\\u2713 ok"}}`;
  assert.equal(buf.toString('utf8'), `{"a":"😀"}\n${text}\n{}\n${text}\n`);
  assert.equal(body.toString('latin1'), '{"text":"\\u2713 ok"}');
  assert.equal(lineText(spliced), text);
});

test('batches queued lines into Buffers no larger than the byte bound, a larger line going alone, in order', async () => {
  const q = new AsyncQueue<WireLine>(4096, { maxWeight: 64 * 1024 * 1024, weigh: (l) => l.length });
  const sent: string[] = [];
  const piece = 'y'.repeat(300 * 1024);
  for (let i = 0; i < 12; i++) { const t = JSON.stringify({ i, piece }); sent.push(t); assert.ok(q.tryPush(line(t))); }
  const hugeText = JSON.stringify({ i: 'huge', piece: 'z'.repeat(3 * MAX_BATCH_BYTES) });
  sent.push(hugeText);
  assert.ok(q.tryPush(line(hugeText)));
  for (let i = 0; i < 500; i++) { const t = `{"small":${i}}`; sent.push(t); assert.ok(q.tryPush(line(t))); }
  q.close();
  const { stream, chunks } = sink();
  await runWriter(q, stream);
  await new Promise<void>((resolve) => stream.end(resolve)); // the last batch is corked until the next tick
  assert.ok(chunks.every((c) => Buffer.isBuffer(c)), 'every write is one Buffer');
  const sizes = (chunks as Buffer[]).map((c) => c.length);
  const hugeBytes = Buffer.byteLength(hugeText);
  // A batch: at most MAX_BATCH_BYTES of lines plus their newlines (256 lines at most).
  for (const size of sizes) assert.ok(size <= MAX_BATCH_BYTES + 256 || size === hugeBytes || size === 1, `a write of ${size} bytes passes the bound`);
  const at = sizes.indexOf(hugeBytes);
  assert.ok(at >= 0 && sizes[at + 1] === 1, 'the oversized line is written alone, as it is, then its newline');
  assert.ok(chunks.length < 30, `small lines share writes (${chunks.length} writes)`);
  // Compared line by line, so a failure names the line instead of printing megabytes.
  const got = Buffer.concat(chunks as Buffer[]).toString('utf8').split('\n');
  assert.equal(got.pop(), '', 'the output ends with a newline');
  assert.equal(got.length, sent.length, 'as many lines as were queued');
  for (let i = 0; i < sent.length; i++) assert.ok(got[i] === sent[i], `line ${i} arrives intact and in order`);
});
