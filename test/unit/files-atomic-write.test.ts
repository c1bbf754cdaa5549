import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeFile, syncDirectory, tempPathFor, writeFileAtomic, writeFileExclusive } from '../../src/files/atomic-write.js';
import { errnoOf } from '../../src/files/write-errors.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'atomic-write-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('replaces a file with the new content, the given mode and mtime, and leaves no temp file', async (t) => {
  const dir = await tempDir(t);
  const target = join(dir, 'a.json');
  await writeFile(target, 'old');
  await writeFileAtomic(target, 'new', { mode: 0o600, mtime: 1_700_000_000 });
  assert.equal(await readFile(target, 'utf8'), 'new');
  const st = await stat(target);
  assert.equal(st.mode & 0o777, 0o600);
  assert.equal(Math.round(st.mtimeMs), 1_700_000_000_000);
  assert.deepEqual(await readdir(dir), ['a.json']);
});

test('writes bytes as given and creates a missing file', async (t) => {
  const dir = await tempDir(t);
  const target = join(dir, 'b.bin');
  await writeFileAtomic(target, new Uint8Array([0, 255, 10]), { syncDir: false });
  assert.deepEqual([...(await readFile(target))], [0, 255, 10]);
});

test('a failed rename leaves the target as it was and removes its temp file', async (t) => {
  const dir = await tempDir(t);
  const target = join(dir, 'taken');
  await mkdir(join(target, 'inside'), { recursive: true }); // a non-empty directory cannot be renamed over
  // The OS code is kept (as a FileWriteError's osError when it is one the write-errors table explains).
  await assert.rejects(writeFileAtomic(target, 'x'), (err: Error) => ['EISDIR', 'ENOTEMPTY'].includes(errnoOf(err) ?? ''));
  assert.deepEqual(await readdir(dir), ['taken']);
  assert.deepEqual(await readdir(target), ['inside']);
});

test('concurrent writers of one file each land whole: the survivor is one of the contents', async (t) => {
  const dir = await tempDir(t);
  const target = join(dir, 'c.txt');
  const contents = Array.from({ length: 20 }, (_, i) => `writer ${i} `.repeat(2000));
  await Promise.all(contents.map((c) => writeFileAtomic(target, c)));
  assert.ok(contents.includes(await readFile(target, 'utf8')));
  assert.deepEqual(await readdir(dir), ['c.txt']);
});

test('an exclusive write creates a missing file and refuses to overwrite an existing one', async (t) => {
  const dir = await tempDir(t);
  const target = join(dir, 'd.yaml');
  assert.equal(await writeFileExclusive(target, 'first'), true);
  assert.equal(await writeFileExclusive(target, 'second'), false);
  assert.equal(await readFile(target, 'utf8'), 'first');
  const racers = await Promise.all(Array.from({ length: 10 }, (_, i) => writeFileExclusive(join(dir, 'e.yaml'), `${i}`)));
  assert.equal(racers.filter(Boolean).length, 1, 'exactly one of ten racing writers wins');
  assert.deepEqual((await readdir(dir)).sort(), ['d.yaml', 'e.yaml']);
});

test('removeFile reports whether there was a file to remove', async (t) => {
  const dir = await tempDir(t);
  const target = join(dir, 'f');
  await writeFile(target, 'x');
  assert.equal(await removeFile(target), true);
  assert.equal(await removeFile(target), false);
});

test('temp names sit beside the target, are hidden, carry the pid and never repeat', () => {
  const a = tempPathFor('/some/dir/set.yaml');
  const b = tempPathFor('/some/dir/set.yaml');
  assert.notEqual(a, b);
  assert.match(a, new RegExp(`^/some/dir/\\.set\\.yaml\\.${process.pid}\\.[0-9a-f]{12}\\.tmp$`));
});

test('syncing a directory that does not exist is an error, not silently skipped', async (t) => {
  const dir = await tempDir(t);
  await syncDirectory(dir);
  await assert.rejects(syncDirectory(join(dir, 'missing')), { code: 'ENOENT' });
});
