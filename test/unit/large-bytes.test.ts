// Large messages are encoded into a block of their own mapping (on Linux), so freeing one gives its
// memory back instead of leaving it in malloc's heap; the bytes are exactly what Buffer.from makes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LARGE_BYTES, largeBytes, MAPPED_BLOCK } from '../../src/pipeline/large-bytes.js';
import { encodeLine } from '../../src/pipeline/outbound.js';
import { sseFrame } from '../../src/http/sse.js';

const onLinux = process.platform === 'linux' && process.arch === 'x64';

test('text and bytes are encoded exactly, emoji and all', () => {
  const text = `{"name":"💻 Code","quote":"${'\\"'.repeat(1000)}","é":"ü"}`;
  const bytes = Buffer.from('tail', 'utf8');
  const out = largeBytes(['head ', text, bytes]);
  assert.deepEqual(out, Buffer.concat([Buffer.from('head '), Buffer.from(text, 'utf8'), bytes]));
});

test('a large answer line and a large SSE frame get a block of their own mapping; small ones do not', () => {
  const big = { jsonrpc: '2.0' as const, id: 1, result: { name: '💻 Code', text: 'x'.repeat(LARGE_BYTES) } };
  const line = encodeLine(big, 64 * 1024 * 1024);
  assert.ok(Buffer.isBuffer(line));
  assert.deepEqual(JSON.parse(line.toString('utf8')), big, 'the same message');
  const small = encodeLine({ jsonrpc: '2.0', id: 2, result: {} }, 1024);
  assert.ok(Buffer.isBuffer(small) && small.buffer.byteLength < MAPPED_BLOCK);
  const frame = sseFrame(line, 's-1');
  assert.ok(Buffer.isBuffer(frame));
  assert.equal(frame.toString('utf8'), `id: s-1\nevent: message\ndata: ${line.toString('utf8')}\n\n`);
  if (onLinux) {
    // Regression: a plain Buffer.from came from malloc's heap, which kept the freed memory (RSS 60–130% above idle after a burst).
    assert.ok(line.buffer.byteLength >= MAPPED_BLOCK, `line block ${line.buffer.byteLength}`);
    assert.ok(frame.buffer.byteLength >= MAPPED_BLOCK, `frame block ${frame.buffer.byteLength}`);
  }
});
