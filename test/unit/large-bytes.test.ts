// Large messages are encoded into memory V8 maps itself (a resizable ArrayBuffer), so freeing one
// gives it back instead of leaving it in malloc's heap; the bytes are exactly what Buffer.from makes,
// and V8 counts the message's own size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LARGE_BYTES, largeBytes } from '../../src/pipeline/large-bytes.js';
import { encodeLine } from '../../src/pipeline/outbound.js';
import { sseFrame } from '../../src/http/sse.js';

const resizable = (b: Buffer): boolean => (b.buffer as ArrayBuffer & { resizable?: boolean }).resizable === true;

test('text and bytes are encoded exactly, emoji and all', () => {
  const text = `{"name":"💻 Code","quote":"${'\\"'.repeat(1000)}","é":"ü"}`;
  const bytes = Buffer.from('tail', 'utf8');
  const out = largeBytes(['head ', text, bytes]);
  assert.deepEqual(out, Buffer.concat([Buffer.from('head '), Buffer.from(text, 'utf8'), bytes]));
});

test('a large answer line and a large SSE frame get memory of their own, as large as they are; small ones do not', () => {
  const big = { jsonrpc: '2.0' as const, id: 1, result: { name: '💻 Code', text: 'x'.repeat(LARGE_BYTES) } };
  const line = encodeLine(big, 64 * 1024 * 1024);
  assert.ok(Buffer.isBuffer(line));
  assert.deepEqual(JSON.parse(line.toString('utf8')), big, 'the same message');
  const small = encodeLine({ jsonrpc: '2.0', id: 2, result: {} }, 1024);
  assert.ok(Buffer.isBuffer(small) && !resizable(small));
  const frame = sseFrame(line, 's-1');
  assert.ok(Buffer.isBuffer(frame));
  assert.equal(frame.toString('utf8'), `id: s-1\nevent: message\ndata: ${line.toString('utf8')}\n\n`);
  // Regression: a plain Buffer.from came from malloc's heap, which kept the freed memory (RSS 60–130% above idle after a burst).
  for (const [what, b] of [['line', line], ['frame', frame]] as const) {
    assert.ok(resizable(b), `the ${what} is in memory V8 maps itself`);
    assert.equal(b.buffer.byteLength, b.length, `the ${what}'s block is the ${what}'s size (V8 counts no more)`);
  }
});
