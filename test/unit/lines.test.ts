// Unit tests of the line splitter (src/rpc/lines.ts): framing of raw stdin bytes into lines.
// They feed Buffers directly and never touch a stream or parse JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { HEAD_BYTES, LineSplitter, type LineEvent } from '../../src/rpc/lines.js';

const line = (text: string): LineEvent => ({ kind: 'line', text });
const b = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Feeds every chunk and collects all events, including those from end(). */
function feed(splitter: LineSplitter, chunks: readonly Buffer[]): LineEvent[] {
  const events: LineEvent[] = [];
  for (const chunk of chunks) events.push(...splitter.push(chunk));
  events.push(...splitter.end());
  return events;
}

test('refuses a non-positive or non-numeric byte limit with a TypeError', () => {
  for (const bad of [0, -1, Number.NaN]) assert.throws(() => new LineSplitter(bad), TypeError);
});

test('returns one event per terminated line and keeps the unterminated tail for later', () => {
  const s = new LineSplitter(1024);
  assert.deepEqual(s.push(b('{"a":')), []);
  assert.deepEqual(s.push(b('1}\n{"b"')), [line('{"a":1}')]);
  assert.deepEqual(s.push(b(':2')), []);
  assert.deepEqual(s.push(b('}\n')), [line('{"b":2}')]);
  assert.deepEqual(s.end(), []);
});

test('joins a line whose pieces arrive one byte at a time', () => {
  const s = new LineSplitter(1024);
  const bytes = b('{"method":"ping"}\n');
  const events: LineEvent[] = [];
  for (let i = 0; i < bytes.length; i++) events.push(...s.push(bytes.subarray(i, i + 1)));
  assert.deepEqual(events, [line('{"method":"ping"}')]);
});

test('strips the CR of a CRLF terminator, also when CR and LF arrive in different chunks', () => {
  assert.deepEqual(feed(new LineSplitter(64), [b('one\r\ntwo\r\n')]), [line('one'), line('two')]);
  assert.deepEqual(feed(new LineSplitter(64), [b('one\r'), b('\ntwo\r'), b('\n')]), [line('one'), line('two')]);
});

test('keeps a CR that is not at the end of the line', () => {
  assert.deepEqual(feed(new LineSplitter(64), [b('a\rb\n')]), [line('a\rb')]);
});

test('removes a byte-order mark at the start of the stream only', () => {
  const events = feed(new LineSplitter(64), [b('\ufeff{"a":1}\n\ufeff{"b":2}\n')]);
  assert.deepEqual(events, [line('{"a":1}'), line('\ufeff{"b":2}')]);
});

test('removes a leading byte-order mark whose three bytes are split across chunks', () => {
  const bytes = b('\ufeffx\n');
  for (let cut = 1; cut < 3; cut++) {
    assert.deepEqual(feed(new LineSplitter(64), [bytes.subarray(0, cut), bytes.subarray(cut)]), [line('x')], `cut at ${cut}`);
  }
});

test('keeps a byte-order mark that opens the second line even when the first line was empty', () => {
  assert.deepEqual(feed(new LineSplitter(64), [b('\n\ufeffx\n')]), [line(''), line('\ufeffx')]);
});

test('reassembles UTF-8 characters split across two chunks at every byte position', () => {
  // 1-, 2-, 3- and 4-byte characters (ASCII, é, €, 🪃) plus emoji with joiners.
  const text = '{"name":"héllo € 🪃 🏗️ ❓"}';
  const bytes = b(`${text}\n`);
  for (let cut = 1; cut < bytes.length; cut++) {
    const events = feed(new LineSplitter(1024), [bytes.subarray(0, cut), bytes.subarray(cut)]);
    assert.deepEqual(events, [line(text)], `cut at byte ${cut}`);
  }
});

test('reassembles a 4-byte character delivered as four one-byte chunks', () => {
  const bytes = b('🪃\n');
  const chunks = [...bytes].map((byte) => Buffer.from([byte]));
  assert.deepEqual(feed(new LineSplitter(16), chunks), [line('🪃')]);
});

test('splits many lines delivered in one chunk, in order', () => {
  const lines = Array.from({ length: 1000 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}`);
  const events = new LineSplitter(1024).push(b(`${lines.join('\n')}\n`));
  assert.deepEqual(events, lines.map(line));
});

test('reports empty lines (bare LF and bare CRLF) as empty text', () => {
  assert.deepEqual(feed(new LineSplitter(64), [b('a\n\n\r\n\nb\n')]), [line('a'), line(''), line(''), line(''), line('b')]);
});

test('accepts a line of exactly the byte limit', () => {
  assert.deepEqual(feed(new LineSplitter(8), [b('12345678\n')]), [line('12345678')]);
});

test('counts the limit in bytes, not characters', () => {
  // Three characters, nine bytes.
  assert.deepEqual(feed(new LineSplitter(8), [b('€€€\nok\n')]), [{ kind: 'oversize', bytes: 9, head: b('€€€') }, line('ok')]);
});

test('reports an oversize line once, with its byte count, and the next line intact', () => {
  const s = new LineSplitter(12);
  assert.deepEqual(s.push(b('0123456789')), []);
  assert.deepEqual(s.push(b('abc')), []);
  assert.deepEqual(s.push(b('de\n{"ok":true}\n')), [{ kind: 'oversize', bytes: 15, head: b('0123456789abc') }, line('{"ok":true}')]);
  assert.deepEqual(s.end(), []);
});

test('reports an oversize line in the middle of a chunk between two normal lines', () => {
  assert.deepEqual(feed(new LineSplitter(4), [b('ab\n0123456789\ncd\n')]), [line('ab'), { kind: 'oversize', bytes: 10, head: b('0123456789') }, line('cd')]);
});

test('reports two consecutive oversize lines separately', () => {
  assert.deepEqual(feed(new LineSplitter(2), [b('aaaa\nbbbbbb\nc\n')]), [
    { kind: 'oversize', bytes: 4, head: b('aaaa') }, { kind: 'oversize', bytes: 6, head: b('bbbbbb') }, line('c'),
  ]);
});

test('hands out the unterminated last line at end(), then nothing', () => {
  const s = new LineSplitter(64);
  assert.deepEqual(s.push(b('a\nlast\r')), [line('a')]);
  assert.deepEqual(s.end(), [line('last')]);
  assert.deepEqual(s.end(), []);
});

test('end() yields nothing when the input ended on a newline or was empty', () => {
  const s = new LineSplitter(64);
  assert.deepEqual(s.push(b('a\n')), [line('a')]);
  assert.deepEqual(s.end(), []);
  assert.deepEqual(new LineSplitter(64).end(), []);
});

test('end() reports an unterminated oversize tail as oversize', () => {
  const s = new LineSplitter(4);
  assert.deepEqual(s.push(b('ok\n0123456')), [line('ok')]);
  assert.deepEqual(s.end(), [{ kind: 'oversize', bytes: 7, head: b('0123456') }]);
});

test('ignores empty chunks', () => {
  assert.deepEqual(feed(new LineSplitter(8), [b(''), b('a'), b(''), b('\n'), b('')]), [line('a')]);
});

// Retention is observed through the garbage collector: a chunk's ArrayBuffer can only be collected
// if the splitter dropped every reference to it. The collector is called explicitly, so nothing
// here waits on time.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Pushes `count` fresh chunks of `size` bytes and returns weak references to their memory. */
function pushChunks(s: LineSplitter, count: number, size: number): { refs: WeakRef<ArrayBuffer>[]; events: LineEvent[] } {
  const refs: WeakRef<ArrayBuffer>[] = [];
  const events: LineEvent[] = [];
  for (let i = 0; i < count; i++) {
    const chunk = Buffer.alloc(size, 0x61); // large enough to own its ArrayBuffer (not pooled)
    refs.push(new WeakRef(chunk.buffer as ArrayBuffer));
    events.push(...s.push(chunk));
  }
  return { refs, events };
}

async function liveCount(refs: readonly WeakRef<ArrayBuffer>[]): Promise<number> {
  await nextTurn(); // weak targets stay alive until the job that created them ends
  collectGarbage();
  return refs.filter((r) => r.deref() !== undefined).length;
}

test('keeps the chunks of an unfinished normal line alive (control for the retention test)', async () => {
  const s = new LineSplitter(1 << 20);
  const { refs, events } = pushChunks(s, 4, 64 * 1024);
  assert.deepEqual(events, []);
  assert.equal(await liveCount(refs), 4);
  const tail = s.push(b('\n'));
  assert.equal(tail.length, 1);
  assert.equal(tail[0]?.kind === 'line' ? tail[0].text.length : -1, 4 * 64 * 1024);
});

test('drops the pieces of an oversize line spanning many chunks, so memory stays bounded', async () => {
  const chunkSize = 64 * 1024;
  const s = new LineSplitter(256 * 1024);
  const { refs, events } = pushChunks(s, 40, chunkSize); // 2.5 MiB against a 256 KiB limit
  assert.deepEqual(events, []);
  assert.equal(await liveCount(refs), 0, 'no chunk of an oversize line may be retained');
  const [over, next] = s.push(b('tail\n{"next":1}\n'));
  assert.deepEqual(next, line('{"next":1}'));
  assert.equal(over?.kind, 'oversize');
  if (over?.kind !== 'oversize') return;
  assert.equal(over.bytes, 40 * chunkSize + 4);
  assert.equal(over.head.length, HEAD_BYTES, 'only the first bytes are kept, to read the id');
});
