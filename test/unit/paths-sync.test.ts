// The path decision answers with plain values, never promises: validate_tool_use is built on
// decideToolUse returning its decision at once. A regression to async anywhere in the chain fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decidePath, type PathRules } from '../../src/paths/decide.js';
import { liveFsView, onceEach } from '../../src/paths/live-fs.js';
import { locate, walk } from '../../src/paths/resolve.js';
import { decideToolUse } from '../../src/modes/decide-tool-use.js';
import { ANY_FILE_WRITER, judgeWrite } from '../../src/authoring/write-gate.js';
import { decideHookCall } from '../../src/hook/decide.js';
import { builtinModes } from '../../src/modes/builtin.js';
import { compileMode } from '../../src/modes/permissions.js';
import { fakeFs } from './paths-fake-fs.js';
import { TREE } from './paths-table.js';

/** Fails when `value` is a promise or any other thenable; hands the value back for further checks. */
function plain<T>(value: T, what: string): T {
  assert.ok(!(value instanceof Promise), `${what} returned a promise`);
  assert.equal(typeof (value as { then?: unknown } | null)?.then, 'undefined', `${what} returned a thenable`);
  return value;
}

test('walk, locate and decidePath return their answers, not promises, along every view', () => {
  const rules: PathRules = { root: '/p', confine: true, pattern: /\.md$/ };
  for (const realpath of [false, true]) {
    const fs = onceEach(fakeFs(TREE, { realpath }));
    assert.equal(plain(walk([], ['p', 'docs', 'a.md'], fs), 'walk').ok, true);
    assert.equal(plain(locate(['p', 'docs', 'a.md'], fs), 'locate').ok, true);
    const d = plain(decidePath('docs/new/b.md', rules, fs), 'decidePath');
    assert.deepEqual(d, { allowed: true, name: 'docs/new/b.md', target: 'docs/new/b.md' });
    const refused = plain(decidePath('outdir/secret.md', rules, fs), 'decidePath');
    assert.equal(refused.allowed, false);
  }
});

test('decideToolUse and the gates built on it decide on the live file system without a promise', (t) => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'rms-sync-')));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'docs'));
  const live = plain(decidePath('docs/x.md', { root, confine: true, pattern: /\.md$/ }, liveFsView()), 'decidePath (live)');
  assert.equal(live.allowed, true);
  const architect = compileMode(builtinModes().find((m) => m.slug === 'architect')!);
  const ctx = { projectRoot: root, confineToProjectRoot: true };
  assert.equal(plain(decideToolUse(architect, 'write_to_file', { path: 'docs/x.md' }, ctx), 'decideToolUse').allowed, true);
  const refused = plain(decideToolUse(architect, 'write_to_file', { path: 'src/x.ts' }, ctx), 'decideToolUse');
  assert.deepEqual([refused.allowed, refused.error], [false, 'file']);
  assert.equal(plain(decideToolUse(architect, 'execute_command', {}, ctx), 'decideToolUse').allowed, false);
  assert.equal(plain(judgeWrite(ANY_FILE_WRITER, '../out.md', ctx), 'judgeWrite').allowed, false);
  assert.equal(plain(decideHookCall(architect, 'Write', join(root, 'docs', 'y.md'), root), 'decideHookCall').allowed, true);
});
