// Unit tests of the RESP2 reply parser and the command encoder: replies split at every byte, replies
// past the byte or depth bound refused, malformed bytes refused with what was wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RedisProtocolError, RedisReplyBoundError, RedisReplyError } from '../../src/redis/errors.js';
import { ReplyParser } from '../../src/redis/reply-parser.js';
import { encodeCommand, type RespValue } from '../../src/redis/resp.js';

const WIDE = { maxBytes: 1 << 20, maxDepth: 8 };

/** Replies as Redis writes them, with what they parse to. */
const REPLIES: [string, RespValue][] = [
  ['+OK\r\n', 'OK'],
  [':-42\r\n', -42],
  [':9007199254740993\r\n', 9007199254740993n],
  ['$4\r\nhé!\r\n', 'hé!'],
  ['$0\r\n\r\n', ''],
  ['$-1\r\n', null],
  ['*-1\r\n', null],
  ['*0\r\n', []],
  ['$6\r\na\r\nb\r\n\r\n', 'a\r\nb\r\n'],
  ['*3\r\n$3\r\nfoo\r\n*2\r\n:1\r\n*1\r\n+x\r\n$-1\r\n', ['foo', [1, ['x']], null]],
];

test('a reply split at every byte parses as the whole one, and replies come out in order', () => {
  const wire = Buffer.from(REPLIES.map(([w]) => w).join(''));
  const expected = REPLIES.map(([, v]) => v);
  for (let cut = 0; cut <= wire.length; cut++) {
    const parser = new ReplyParser(WIDE);
    const got = [...parser.feed(wire.subarray(0, cut)), ...parser.feed(wire.subarray(cut))];
    assert.deepEqual(got, expected, `split at byte ${cut}`);
  }
  const parser = new ReplyParser(WIDE);
  const byByte: RespValue[] = [];
  for (let i = 0; i < wire.length; i++) byByte.push(...parser.feed(wire.subarray(i, i + 1)));
  assert.deepEqual(byByte, expected, 'one byte at a time');
});

test('a UTF-8 character split between chunks stays whole', () => {
  const wire = Buffer.from('$4\r\n€!\r\n');
  for (let cut = 4; cut <= 7; cut++) {
    const parser = new ReplyParser(WIDE);
    assert.deepEqual([...parser.feed(wire.subarray(0, cut)), ...parser.feed(wire.subarray(cut))], ['€!']);
  }
});

test('error replies keep Redis\'s message and prefix, at the top and nested (EXEC)', () => {
  const [top, nested] = new ReplyParser(WIDE).feed(Buffer.from(
    '-WRONGTYPE Operation against a key holding the wrong kind of value\r\n*2\r\n+OK\r\n-NOSCRIPT No matching script.\r\n'));
  assert.ok(top instanceof RedisReplyError);
  assert.equal(top.prefix, 'WRONGTYPE');
  assert.equal(top.serverMessage, 'WRONGTYPE Operation against a key holding the wrong kind of value');
  assert.equal(top.retryable, false);
  assert.ok(Array.isArray(nested) && nested[1] instanceof RedisReplyError && nested[1].prefix === 'NOSCRIPT');
  assert.equal(new RedisReplyError('no prefix here').prefix, '');
});

test('a reply nested deeper than the bound is refused as soon as the deep array starts', () => {
  const parser = new ReplyParser({ maxBytes: 1 << 20, maxDepth: 3 });
  assert.deepEqual(parser.feed(Buffer.from('*1\r\n*1\r\n*1\r\n:1\r\n')), [[[[1]]]], 'depth 3 passes');
  assert.throws(() => parser.feed(Buffer.from('*1\r\n*1\r\n*1\r\n*1\r\n')),
    (e: unknown) => e instanceof RedisReplyBoundError && e.bound === 'depth' && /deeper than 3 levels/.test(e.message));
});

test('a reply larger than the byte bound is refused, at the bulk header when it declares the size', () => {
  const bounds = { maxBytes: 17, maxDepth: 8 };
  assert.deepEqual(new ReplyParser(bounds).feed(Buffer.from('$10\r\n0123456789\r\n')), ['0123456789'], '17 bytes pass');
  // Only the header has arrived: the declared length alone is enough to refuse.
  assert.throws(() => new ReplyParser(bounds).feed(Buffer.from('$11\r\n')),
    (e: unknown) => e instanceof RedisReplyBoundError && e.bound === 'bytes' && /exceeds 17 bytes/.test(e.message));
  // Many small elements add up; a line that never ends counts too.
  assert.throws(() => new ReplyParser(bounds).feed(Buffer.from('*9\r\n:1\r\n:2\r\n:3\r\n:4\r\n')), RedisReplyBoundError);
  assert.throws(() => new ReplyParser(bounds).feed(Buffer.from('+'.padEnd(40, 'x'))), RedisReplyBoundError);
  // The count starts again with each reply.
  const parser = new ReplyParser(bounds);
  for (let i = 0; i < 10; i++) assert.deepEqual(parser.feed(Buffer.from('$10\r\n0123456789\r\n')), ['0123456789']);
});

test('malformed bytes are refused with what was wrong', () => {
  const cases: [string, RegExp][] = [
    ['%1\r\n', /unexpected type byte 0x25/],
    ['+OK\n', /does not end with CRLF/],
    ['$x\r\n', /length of a bulk string is "x"/],
    ['*-2\r\n', /length of an? array is "-2"/],
    [':1.5\r\n', /integer reply is "1.5"/],
    ['$2\r\nabcd', /bulk string does not end with CRLF/],
  ];
  for (const [wire, message] of cases) {
    assert.throws(() => new ReplyParser(WIDE).feed(Buffer.from(wire)),
      (e: unknown) => e instanceof RedisProtocolError && e.kind === 'protocol' && message.test(e.message), wire);
  }
});

test('a command is an array of bulk strings, byte lengths counted', () => {
  assert.equal(encodeCommand(['SET', 'k€', 12, Buffer.from([0, 1])]).toString('latin1'),
    '*4\r\n$3\r\nSET\r\n$4\r\nk\u00e2\u0082\u00ac\r\n$2\r\n12\r\n$2\r\n\u0000\u0001\r\n');
  assert.equal(encodeCommand(['SET', 'k€', 12]).toString('latin1'), '*3\r\n$3\r\nSET\r\n$4\r\nk\u00e2\u0082\u00ac\r\n$2\r\n12\r\n',
    'text alone: the same bytes');
});
