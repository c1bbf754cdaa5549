import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as real from 'node:fs/promises';
import { join } from 'node:path';
import * as ours from '../../src/hook/sync-fs-promises.js';
import { tree } from './file-tree.js';

// The check file links src/hook/sync-fs-promises.ts in place of node:fs/promises: what its modules
// see must be what the real module gives them, answers and errors alike.

const codeOf = async (p: Promise<unknown>): Promise<string> => p.then(() => 'none', (err: NodeJS.ErrnoException) => err.code ?? 'no code');

test('stat, realpath and open answer as node:fs/promises does, errors as rejections with the same codes', async (t) => {
  const dir = tree(t, { 'a/file.txt': 'hello, world\n' });
  mkdirSync(join(dir, 'b'));
  symlinkSync(join(dir, 'a', 'file.txt'), join(dir, 'b', 'link'));
  const file = join(dir, 'a', 'file.txt');
  assert.equal((await ours.stat(file)).size, (await real.stat(file)).size);
  assert.equal((await ours.stat(join(dir, 'b', 'link'))).isFile(), true);
  assert.equal(await ours.realpath(join(dir, 'b', 'link')), await real.realpath(join(dir, 'b', 'link')));
  for (const missing of [join(dir, 'nope'), join(dir, 'a', 'file.txt', 'below')]) {
    assert.equal(await codeOf(ours.stat(missing)), await codeOf(real.stat(missing)), missing);
    assert.equal(await codeOf(ours.realpath(missing)), await codeOf(real.realpath(missing)), missing);
    assert.equal(await codeOf(ours.open(missing, 'r')), await codeOf(real.open(missing, 'r')), missing);
  }
  // A failing call rejects; it never throws where the caller awaits a promise.
  const pending = ours.stat(join(dir, 'nope'));
  assert.ok(pending instanceof Promise);
  await pending.catch(() => undefined);
  // O_NOFOLLOW refuses the link, as the safe reader asks.
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW;
  assert.equal(await codeOf(ours.open(join(dir, 'b', 'link'), flags)), await codeOf(real.open(join(dir, 'b', 'link'), flags)));
});

test('a handle reads, stats and closes like a FileHandle, and a second close is harmless', async (t) => {
  const dir = tree(t, {});
  const file = join(dir, 'f.txt');
  writeFileSync(file, 'abcdefghij');
  const fh = await ours.open(file, 'r');
  assert.equal((await fh.stat()).size, 10);
  const buf = Buffer.alloc(4);
  const { bytesRead, buffer } = await fh.read(buf, 0, 4, 3);
  assert.equal(bytesRead, 4);
  assert.equal(buffer, buf);
  assert.equal(buf.toString(), 'defg');
  assert.equal((await fh.read(Buffer.alloc(8), 0, 8, 10)).bytesRead, 0, 'at the end');
  await fh.close();
  await fh.close();
});
