import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { LineDecoder, encodeMessage } from '../../src/client/framing.js';

test('joins a line split across chunks and keeps the partial tail', () => {
  const d = new LineDecoder();
  assert.deepEqual(d.push(Buffer.from('{"a":')), []);
  assert.deepEqual(d.push(Buffer.from('1}\n{"b"')), ['{"a":1}']);
  assert.deepEqual(d.push(Buffer.from(':2}\n')), ['{"b":2}']);
});

test('decodes a multi-byte character cut between chunks', () => {
  const bytes = Buffer.from('"héllo 🪃"\n');
  const cut = bytes.indexOf(0xf0) + 2; // inside the emoji's four bytes
  const d = new LineDecoder();
  assert.deepEqual(d.push(bytes.subarray(0, cut)), []);
  assert.deepEqual(d.push(bytes.subarray(cut)), ['"héllo 🪃"']);
});

test('strips a trailing CR and skips blank lines', () => {
  const d = new LineDecoder();
  assert.deepEqual(d.push(Buffer.from('one\r\n\r\n\ntwo\r\n')), ['one', 'two']);
});

test('reports an over-long line once and recovers at the next newline', () => {
  const d = new LineDecoder(8);
  assert.deepEqual(d.push(Buffer.from('0123456789')), []);
  assert.deepEqual(d.push(Buffer.from('abc\nok\n')), [{ oversize: 13 }, 'ok']);
});

test('hands out an unterminated last line at end of stream', () => {
  const d = new LineDecoder();
  assert.deepEqual(d.push(Buffer.from('a\nlast')), ['a']);
  assert.deepEqual(d.end(), ['last']);
  assert.deepEqual(d.end(), []);
});

test('encodes one message as exactly one line even when strings hold newlines', () => {
  const line = encodeMessage({ text: 'a\nb\r\nc' });
  assert.equal(line.indexOf('\n'), line.length - 1);
  assert.deepEqual(JSON.parse(line), { text: 'a\nb\r\nc' });
});
