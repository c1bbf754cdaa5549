// The table's file system built on a real disk: the live view (lstat, readlink, realpath) must
// decide every row as the table model does, and must see a link swapped between two decisions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decidePath, type PathRules } from '../../src/paths/decide.js';
import { liveFsView } from '../../src/paths/live-fs.js';
import type { FsView } from '../../src/paths/resolve.js';
import { fakeFs } from './paths-fake-fs.js';
import { PATTERNS, ROWS, TREE, summary } from './paths-table.js';

/** Lays TREE out under `base`; entries a test cannot make for real (errors, special files) are skipped. */
function build(base: string): { skipped: string[]; fake: Record<string, string> } {
  const fake: Record<string, string> = {};
  const parts = base.split('/').filter((p) => p !== '');
  for (let i = 1; i <= parts.length; i++) fake[`/${parts.slice(0, i).join('/')}`] = 'dir';
  const skipped: string[] = [];
  for (const [path, what] of Object.entries(TREE)) {
    const at = base + path;
    if (what === 'dir') mkdirSync(at, { recursive: true });
    else if (what === 'file') writeFileSync(at, 'x');
    else if (what.startsWith('-> ')) {
      const target = what.slice(3);
      symlinkSync(target.startsWith('/') ? base + target : target, at);
      fake[at] = `-> ${target.startsWith('/') ? base + target : target}`;
      continue;
    } else { skipped.push(path); continue; }
    fake[at] = what;
  }
  return { skipped, fake };
}

/** A fresh live view with some of its facts replaced (its questions still go to the disk). */
function liveView(over: Partial<FsView>): FsView {
  const live = liveFsView();
  return { platform: live.platform, resolvesPrefixes: live.resolvesPrefixes, entry: (p) => live.entry(p), realpath: (p) => live.realpath!(p), ...over };
}

test('the live file system decides every table row as the table model does', (t) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'rms-live-')));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const { skipped, fake } = build(base);
  let compared = 0;
  for (const [raw, pattern, , options] of ROWS) {
    const platform = options?.platform ?? 'posix';
    // Absolute Windows spellings cannot be moved under the scratch folder by prefixing it.
    if (skipped.some((p) => raw.startsWith(p.replace('/p/', ''))) || (platform === 'win32' && raw.startsWith('\\'))) continue;
    const rules: PathRules = { root: base + (options?.root ?? '/p'), confine: options?.confine ?? true, pattern: PATTERNS[pattern] };
    const given = raw.startsWith('/') ? base + raw : raw;
    // The machine's own facts as the row states them: its separators, and `~` under the scratch folder.
    const home = options?.home === null ? null : base + (options?.home ?? '/o');
    const machine = { platform, home: () => home };
    const live = decidePath(given, rules, liveView(machine));
    const model = decidePath(given, rules, fakeFs(fake, { platform, home }));
    assert.equal(summary(live), summary(model), `${JSON.stringify(raw)} (${pattern}): live ${JSON.stringify(live)}`);
    // The kernel's own lstat below the configured root (no realpath of it) must change nothing.
    const full = decidePath(given, rules, liveView({ ...machine, resolvesPrefixes: false }));
    assert.deepEqual(live, full, `${JSON.stringify(raw)} (${pattern}): the full procedure differs`);
    compared++;
  }
  assert.ok(compared >= 100, `${compared} rows compared`);
});

test('a live decision sees a link swapped since the previous one, with no wait', (t) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'rms-live-')));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  build(base);
  const rules: PathRules = { root: `${base}/p`, confine: true, pattern: /\.md$/ };
  const link = `${base}/p/swap.md`;
  symlinkSync('docs/a.md', link);
  assert.equal(summary(decidePath('swap.md', rules, liveFsView())), 'ok swap.md → docs/a.md');
  unlinkSync(link);
  symlinkSync(`${base}/o/secret.md`, link);
  assert.equal(summary(decidePath('swap.md', rules, liveFsView())), 'outside');
  unlinkSync(link);
  symlinkSync(`${base}/o/nowhere.md`, link); // dangling now
  assert.equal(summary(decidePath('swap.md', rules, liveFsView())), 'outside');
  unlinkSync(link);
  symlinkSync('src.ts', link);
  assert.equal(summary(decidePath('swap.md', rules, liveFsView())), 'pattern');
});
