// The shared safe reader: what it reads, what it refuses (by reason), and that it never blocks on a
// FIFO or reads past its cap. One table of cases over a scratch folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSafely, UnsafeFileError, type SafeReadOptions, type UnsafeReason } from '../../src/files/safe-read.js';

test('reads regular files and refuses everything else with a reason', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'safe-read-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const inner = join(dir, 'inner');
  mkdirSync(inner);
  writeFileSync(join(inner, 'plain.txt'), 'hello');
  writeFileSync(join(dir, 'outside.txt'), 'secret');
  symlinkSync(join(inner, 'plain.txt'), join(inner, 'link-in.txt'));
  symlinkSync(join(dir, 'outside.txt'), join(inner, 'link-out.txt'));
  writeFileSync(join(inner, 'big.txt'), '');
  truncateSync(join(inner, 'big.txt'), 50 * 1024 * 1024);
  writeFileSync(join(inner, 'utf8.txt'), 'ab€');
  const fifo = spawnSync('mkfifo', [join(inner, 'fifo')]).status === 0;
  const refuse: SafeReadOptions = { maxBytes: 100, links: 'refuse' };
  const follow: SafeReadOptions = { maxBytes: 100, links: 'follow' };
  const cases: [string, SafeReadOptions, string | UnsafeReason][] = [
    ['plain.txt', refuse, 'hello'],
    ['plain.txt', { ...follow, confineTo: inner }, 'hello'],
    ['link-in.txt', refuse, 'symlink'],
    ['link-in.txt', { ...follow, confineTo: inner }, 'hello'],
    ['link-out.txt', follow, 'secret'],
    ['link-out.txt', { ...follow, confineTo: inner }, 'outside'],
    ['missing.txt', refuse, 'missing'],
    ['.', follow, 'not_regular'],
    ['big.txt', follow, 'too_large'],
    ['utf8.txt', { maxBytes: 4, links: 'refuse', cut: true }, 'ab'],
    ...(fifo ? [['fifo', follow, 'not_regular'] as [string, SafeReadOptions, string]] : []),
  ];
  for (const [name, opts, want] of cases) {
    const got = await readFileSafely(join(inner, name), opts).then((r) => r.text, (err: unknown) => {
      assert.ok(err instanceof UnsafeFileError, String(err));
      assert.ok(err.message.startsWith(join(inner, name)), `the error names the file: ${err.message}`);
      assert.ok(!err.message.includes('secret'), 'never the content');
      return err.reason;
    });
    assert.equal(got, want, `${name} with ${JSON.stringify(opts)}`);
  }
});
