// The start-up check of the session store folder: what it accepts and the words it refuses with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeFolderProblem } from '../../src/tasks/store-check.js';

test('accepts a folder or a creatable path, and names what is wrong otherwise', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'store-check-'));
  t.after(() => { chmodSync(dir, 0o700); rmSync(dir, { recursive: true, force: true }); });
  mkdirSync(join(dir, 'ok'));
  writeFileSync(join(dir, 'file'), 'x');
  assert.equal(await storeFolderProblem(join(dir, 'ok')), null);
  assert.equal(await storeFolderProblem(join(dir, 'new', 'deeper')), null, 'missing folders are created later');
  assert.equal(await storeFolderProblem(join(dir, 'file')), 'is not a directory');
  assert.equal(await storeFolderProblem(join(dir, 'file', 'sessions')), `cannot be created: ${join(dir, 'file')} is not a directory`);
});

test('refuses a folder it cannot write', { skip: process.getuid?.() === 0 ? 'root can write anywhere' : false }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'store-check-'));
  t.after(() => { chmodSync(dir, 0o700); rmSync(dir, { recursive: true, force: true }); });
  chmodSync(dir, 0o500);
  assert.match((await storeFolderProblem(dir)) ?? '', /^is not writable \(EACCES\)$/);
  assert.match((await storeFolderProblem(join(dir, 'sessions'))) ?? '', /^cannot be created: .* is not writable \(EACCES\)$/);
});
