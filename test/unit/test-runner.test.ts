// What `npm test` prints, through test/run.mjs on the small files in test/fixtures/runner: one line
// per file, failures in full, each skip reason once, the summary line last, and the exit code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = 'test/fixtures/runner';

function run(...names: string[]): { status: number | null; lines: string[]; stdout: string } {
  return runIn(process.env, ...names);
}

function runIn(env: NodeJS.ProcessEnv, ...names: string[]): { status: number | null; lines: string[]; stdout: string } {
  const paths = names.map((n) => `${FIXTURES}/${n}${n.endsWith('.ts') ? '' : '.test.mjs'}`);
  const r = spawnSync(process.execPath, ['test/run.mjs', ...paths], { cwd: REPO, encoding: 'utf8', timeout: 120_000, env });
  return { status: r.status, lines: r.stdout.trimEnd().split('\n'), stdout: r.stdout };
}

test('passing files: one line each with the count so far, the duration, then exactly `N passed, 0 failed, 0 skipped` as the last line, exit 0', () => {
  const r = run('passing', 'skipping-a');
  assert.equal(r.status, 0, r.stdout);
  const fileLines = r.lines.slice(0, 2).sort((a, b) => a.localeCompare(b));
  assert.match(fileLines[0]!, /^ok {3}[12]\/2 test\/fixtures\/runner\/passing\.test\.mjs {2}3 passed \(\d+\.\d s\)$/);
  assert.match(fileLines[1]!, /^ok {3}[12]\/2 test\/fixtures\/runner\/skipping-a\.test\.mjs {2}0 passed, 2 skipped/);
  assert.deepEqual(r.lines.slice(0, 2).map((l) => l.slice(5, 8)), ['1/2', '2/2'], 'the count goes up one per file');
  assert.match(r.lines.at(-2)!, /^2 files in \d+\.\d s, \d+ at a time$/);
  assert.equal(r.lines.at(-1), '3 passed, 0 failed, 2 skipped');
  assert.equal(r.lines.length, 5, `a file line each, one skip line, the duration, the summary:\n${r.stdout}`);
});

test('a failing test is printed in full with its file\'s output, and the run exits 1', () => {
  const r = run('failing', 'passing');
  assert.equal(r.status, 1);
  assert.match(r.stdout, /^FAIL \d\/2 test\/fixtures\/runner\/failing\.test\.mjs {2}1 passed, 1 failed/m);
  assert.match(r.stdout, /✖ compares words {2}\(test\/fixtures\/runner\/failing\.test\.mjs:5:1\)/);
  assert.match(r.stdout, /'left-word'/, 'the assertion\'s values');
  assert.match(r.stdout, /'right-word'/);
  assert.match(r.stdout, /failing\.test\.mjs:5:\d+/, 'the stack');
  assert.match(r.stdout, /\| noise from the failing file/);
  assert.doesNotMatch(r.stdout, /^TAP version|^# tests /m, 'no TAP');
  assert.equal(r.lines.at(-1), '4 passed, 1 failed, 0 skipped');
});

test('a file that crashes before declaring a test counts as one failure, with its error', () => {
  const r = run('crashing', 'passing');
  assert.equal(r.status, 1);
  assert.match(r.stdout, /^FAIL \d\/2 test\/fixtures\/runner\/crashing\.test\.mjs {2}0 passed, 1 failed/m);
  assert.match(r.stdout, /the file itself broke/);
  assert.equal(r.lines.at(-1), '3 passed, 1 failed, 0 skipped');
});

test('one skip reason shared by several tests and files is printed once', () => {
  const r = run('skipping-a', 'skipping-b', 'passing');
  assert.equal(r.status, 0);
  assert.deepEqual(r.lines.filter((l) => l.includes('the shared reason')), ['skipped 3 tests: the shared reason']);
  assert.equal(r.lines.at(-1), '3 passed, 0 failed, 3 skipped');
});

test('a run where no test ran exits 1, the summary line still last', () => {
  const r = run('skipping-b');
  assert.equal(r.status, 1);
  assert.ok(r.lines.includes('test/run.mjs: no test ran'), r.stdout);
  assert.equal(r.lines.at(-1), '0 passed, 0 failed, 1 skipped');
});

test('a run whose tests leave something in the temp folder fails and names it; the folder is removed', () => {
  const r = run('leaving', 'passing');
  assert.equal(r.status, 1, r.stdout);
  assert.ok(r.lines.some((l) => /^test\/run\.mjs: the tests left 1 thing\(s\) in their temp folder: forgotten-\w+$/.test(l)), r.stdout);
  assert.equal(r.lines.at(-1), '4 passed, 0 failed, 0 skipped');
});

test('on a machine whose temp folder holds no compile cache yet, TypeScript files still run, and the caches are made there', () => {
  const fresh = mkdtempSync(join(tmpdir(), 'fresh-machine-temp-'));
  try {
    // Without the cache folder the outer run chose: a machine where nothing was compiled yet.
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: fresh, TMP: fresh, TEMP: fresh };
    delete env.ROO_TEST_TS_CACHE;
    const r = runIn(env, 'typed.test.ts', 'passing');
    assert.equal(r.status, 0, r.stdout);
    assert.equal(r.lines.at(-1), '4 passed, 0 failed, 0 skipped');
    const kept = readdirSync(fresh);
    assert.ok(kept.some((n) => n.startsWith('rms-ts-')), `the compiled files stay in the machine's temp folder, for the next run: ${kept.join(', ')}`);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});
