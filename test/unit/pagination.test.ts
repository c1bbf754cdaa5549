// Unit tests of list pagination (src/mcp/pagination.ts): opaque cursors round-trip, any cursor this
// server did not hand out is refused with -32602, and tools/list pages are answered from one string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCursor, encodeCursor, paginate } from '../../src/mcp/pagination.js';
import { InvalidParamsError } from '../../src/rpc/errors.js';
import { readToolSpecs, ToolListing } from '../../src/mcp/tools.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

function assertBadCursor(cursor: unknown): void {
  assert.throws(() => decodeCursor(cursor), (err: unknown) => {
    assert.ok(err instanceof InvalidParamsError, `cursor ${JSON.stringify(cursor)} threw ${String(err)}`);
    assert.equal(err.code, -32602);
    assert.equal(err.toWire().code, -32602);
    return true;
  }, `cursor ${JSON.stringify(cursor)} must be refused`);
}

test('encodes and decodes an offset round trip', () => {
  for (const n of [0, 1, 99, 100, 12345, Number.MAX_SAFE_INTEGER]) assert.equal(decodeCursor(encodeCursor(n)), n);
});

test('cursors are opaque: they do not show the offset as plain digits', () => {
  assert.doesNotMatch(encodeCursor(100), /^\d+$/);
  assert.match(encodeCursor(100), /^[A-Za-z0-9_-]+$/);
});

test('a missing cursor (undefined or null) starts at the beginning', () => {
  assert.equal(decodeCursor(undefined), 0);
  assert.equal(decodeCursor(null), 0);
});

test('refuses non-string cursors with InvalidParamsError -32602', () => {
  for (const bad of [5, true, {}, [], { offset: 1 }]) assertBadCursor(bad);
});

test('refuses garbage, empty and over-long strings', () => {
  for (const bad of ['', 'garbage', 'not a cursor!', 'x'.repeat(65), `${encodeCursor(1)}${'A'.repeat(64)}`]) assertBadCursor(bad);
});

test('refuses a cursor with the wrong prefix', () => {
  assertBadCursor(b64('p2:5'));
  assertBadCursor(b64('5'));
  assertBadCursor(b64('P1:5'));
});

test('refuses negative, fractional and non-numeric offsets', () => {
  for (const text of ['p1:-1', 'p1:1.5', 'p1:abc', 'p1:NaN', 'p1:Infinity', `p1:${2 ** 53}`]) assertBadCursor(b64(text));
});

test('refuses offsets that are not written as plain decimal digits', () => {
  // Number() accepts '', ' 5', '0x10' and '1e3'; none of these was produced by encodeCursor.
  for (const text of ['p1:', 'p1: 5', 'p1:0x10', 'p1:1e3', 'p1:+5']) assertBadCursor(b64(text));
});

test('refuses a valid cursor with stray characters that base64url decoding would skip', () => {
  const good = encodeCursor(5);
  assertBadCursor(`${good}!!`);
  assertBadCursor(`${good.slice(0, 2)}*${good.slice(2)}`);
});

test('the error data says what a valid cursor is', () => {
  try {
    decodeCursor('garbage');
    assert.fail('expected a throw');
  } catch (err) {
    assert.ok(err instanceof InvalidParamsError);
    const data = err.toWire().data as { message?: unknown };
    assert.match(String(data.message), /cursor/);
  }
});

test('walking the pages with nextCursor visits every item exactly once, in order', () => {
  const items = Array.from({ length: 25 }, (_, i) => `item-${i}`);
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = paginate(items, cursor, 10);
    seen.push(...page.items);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined && pages < 10);
  assert.equal(pages, 3);
  assert.deepEqual(seen, items);
});

test('the last page has no nextCursor key at all', () => {
  const items = [1, 2, 3, 4];
  const first = paginate(items, undefined, 2);
  assert.deepEqual(first.items, [1, 2]);
  assert.equal(typeof first.nextCursor, 'string');
  const last = paginate(items, first.nextCursor, 2);
  assert.deepEqual(last, { items: [3, 4] });
  assert.equal(Object.hasOwn(last, 'nextCursor'), false);
});

test('a list that fits one page has no nextCursor', () => {
  assert.deepEqual(paginate(['a', 'b'], undefined, 100), { items: ['a', 'b'] });
  assert.deepEqual(paginate([], undefined, 100), { items: [] });
});

test('a cursor past the end gives an empty last page', () => {
  assert.deepEqual(paginate([1, 2], encodeCursor(50), 10), { items: [] });
});

test('paginate refuses a bad cursor with -32602', () => {
  assert.throws(() => paginate([1, 2, 3], 'garbage', 2), InvalidParamsError);
});

test('tools/list answers each page with one shared string per revision, so queued answers cost nothing each', async () => {
  let version = '2025-11-25';
  const listing = new ToolListing(await readToolSpecs(), { pageSize: 10, toolErrors: 'jsonrpc', protocolVersion: () => version });
  const first = listing.list({});
  assert.equal(listing.list({}), first, 'the same first page is the same object');
  const cursor = (JSON.parse(first.json) as { nextCursor: string }).nextCursor;
  const second = listing.list({ cursor });
  assert.equal(listing.list({ cursor }), second);
  assert.notEqual(second.json, first.json);
  version = '2024-11-05';
  const old = listing.list({});
  assert.notEqual(old, first, 'each revision has its own answer');
  assert.equal((JSON.parse(old.json) as { tools: { title?: string }[] }).tools.some((x) => 'title' in x), false);
  // A page past the end is answered (empty) but not kept, so cursors cannot grow the cache.
  const past = listing.list({ cursor: encodeCursor(10_000) });
  assert.notEqual(listing.list({ cursor: encodeCursor(10_000) }), past);
});
