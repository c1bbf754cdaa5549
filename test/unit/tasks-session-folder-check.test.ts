// The start-up check of the session store folder: what it accepts and the words it refuses with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeFolderProblem } from '../../src/tasks/session-folder-check.js';

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

/**
 * The check as an unprivileged user sees it: root may write anywhere, so when the tests run as
 * root the checker (which imports only node: modules) is copied to a world-readable folder and
 * run there as the user nobody (uid 65534).
 */
async function problemsAsUser(paths: string[]): Promise<(string | null)[]> {
  if (process.getuid?.() !== 0) return Promise.all(paths.map((p) => storeFolderProblem(p)));
  const { spawnSync } = await import('node:child_process');
  const { copyFileSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const place = mkdtempSync(join(tmpdir(), 'store-check-as-user-'));
  try {
    chmodSync(place, 0o755);
    copyFileSync(fileURLToPath(new URL('../../dist/tasks/session-folder-check.js', import.meta.url)), join(place, 'check.mjs'));
    const script = `const { storeFolderProblem } = await import(${JSON.stringify(join(place, 'check.mjs'))});
      process.stdout.write(JSON.stringify(await Promise.all(${JSON.stringify(paths)}.map((p) => storeFolderProblem(p)))));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { uid: 65534, gid: 65534, encoding: 'utf8' });
    assert.equal(r.status, 0, `the check as user nobody: ${r.stderr}`);
    return JSON.parse(r.stdout) as (string | null)[];
  } finally {
    rmSync(place, { recursive: true, force: true });
  }
}

test('refuses a folder it cannot write', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'store-check-'));
  t.after(() => { chmodSync(dir, 0o700); rmSync(dir, { recursive: true, force: true }); });
  // Readable and searchable by everyone, writable by no one but its owner (root, when root runs this).
  chmodSync(dir, 0o555);
  const [self, below] = await problemsAsUser([dir, join(dir, 'sessions')]);
  assert.match(self ?? '', /^is not writable \(EACCES\)$/);
  assert.match(below ?? '', /^cannot be created: .* is not writable \(EACCES\)$/);
});
