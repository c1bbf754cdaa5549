// `export` and what it leaves out, through the built CLI: personal (global) modes only with
// --include-global, and a broken mode named in the report with exit status 1 after the rest is written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findOnPath } from '../../src/cli/on-path.js';
import { MAIN, tempDir } from './harness.js';
import { runCli } from './cli-run.js';

const GOOD = `  - slug: docs
    name: Docs
    roleDefinition: Writes docs.
    groups: [read]
`;
const BROKEN = `  - slug: bad
    name: Bad
    roleDefinition: Has a group no one knows.
    groups: [read, nope]
`;

function project(t: { after(fn: () => void): void }, roomodes: string): { root: string; env: Record<string, string>; global: string } {
  const root = tempDir(t, 'rms-global-');
  const home = tempDir(t, 'rms-global-home-');
  writeFileSync(join(root, '.roomodes'), roomodes);
  const global = join(home, '.roo-code');
  mkdirSync(global);
  writeFileSync(join(global, 'modes.yaml'), 'customModes:\n  - slug: personal\n    name: Mine\n    roleDefinition: My own way.\n    groups: [read, edit]\n');
  return { root, env: { HOME: home, ROO_CONFIG_DIR: global, ROO_PROJECT_ROOT: root }, global };
}

const agents = (root: string): string[] => (existsSync(join(root, '.claude', 'agents')) ? readdirSync(join(root, '.claude', 'agents')).sort() : []);

test('a broken mode is named, the rest is written, and export and --check exit 1', async (t) => {
  const { root, env } = project(t, `customModes:\n${GOOD}${BROKEN}`);
  const r = await runCli(['export', '--to', 'claude-code'], { env, cwd: root });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.deepEqual(agents(root), ['docs.md'], 'the valid mode is written, the broken one and the personal one are not');
  assert.match(r.stdout, /skipped \(broken\): .*\.roomodes:6: mode "bad" was skipped: groups\[1\]: .*nope/);
  assert.match(r.stdout, /wrote: .*docs\.md/);
  // The command named is one that runs here: roo-modes-server on PATH, else node and this checkout's main file.
  const me = findOnPath('roo-modes-server', process.env) !== null ? 'roo-modes-server' : `node ${join(dirname(MAIN), 'main.cjs')}`;
  assert.ok(r.stdout.endsWith(`A broken mode was left out of this export: fix it (${me} validate) and export again.\n`), r.stdout);
  const check = await runCli(['export', '--to', 'claude-code', '--check'], { env, cwd: root });
  assert.equal(check.code, 1, check.stdout);
  assert.match(check.stdout, /unchanged: .*docs\.md/);
  assert.match(check.stdout, /skipped \(broken\): .*mode "bad"/);
  assert.doesNotMatch(check.stdout, /Some files are not what export would write/, 'the files are current; the mode is what is missing');
  // Naming the modes to export: a broken other mode is not part of it.
  const named = await runCli(['export', '--to', 'claude-code', '--mode', 'docs'], { env, cwd: root });
  assert.equal(named.code, 0, named.stdout);
  assert.match(named.stdout, /skipped \(broken\): .*mode "bad"/);
  writeFileSync(join(root, '.roomodes'), `customModes:\n${GOOD}`);
  const fixed = await runCli(['export', '--to', 'claude-code', '--check'], { env, cwd: root });
  assert.equal(fixed.code, 0, fixed.stdout);
});

test('global (personal) modes are exported only with --include-global, and said so', async (t) => {
  const { root, env, global } = project(t, `customModes:\n${GOOD}`);
  const r = await runCli(['export', '--to', 'claude-code'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(agents(root), ['docs.md']);
  assert.match(r.stdout, /not exported \(global, personal\): personal; --include-global exports them into the project's files/);
  const named = await runCli(['export', '--to', 'claude-code', '--mode', 'personal'], { env, cwd: root });
  assert.equal(named.code, 2);
  assert.match(named.stderr, /personal is a global \(personal\) mode from .*modes\.yaml: add --include-global to export it into the project/);
  assert.deepEqual(agents(root), ['docs.md']);
  const asked = await runCli(['export', '--to', 'claude-code', '--include-global'], { env, cwd: root });
  assert.equal(asked.code, 0, asked.stdout);
  assert.deepEqual(agents(root), ['docs.md', 'personal.md']);
  assert.doesNotMatch(asked.stdout, /not exported/);
  assert.equal((await runCli(['export', '--to', 'claude-code', '--mode', 'personal', '--include-global'], { env, cwd: root })).code, 0);

  // A broken personal file touches this export only when it exports personal modes.
  writeFileSync(join(global, 'modes.yaml'), 'customModes: [\n');
  const mine = await runCli(['export', '--to', 'claude-code', '--mode', 'docs', '--out', join(root, 'out')], { env, cwd: root });
  assert.equal(mine.code, 0, mine.stdout);
  assert.match(mine.stdout, /problem in your global mode files \(not exported\): .*modes\.yaml:\d+: cannot parse the file/);
  const plain = await runCli(['export', '--to', 'cursor', '--out', join(root, 'out')], { env, cwd: root });
  assert.equal(plain.code, 0, plain.stdout);
  const all = await runCli(['export', '--to', 'cursor', '--include-global', '--out', join(root, 'out')], { env, cwd: root });
  assert.equal(all.code, 1, all.stdout);
  assert.match(all.stdout, /skipped \(broken\): .*modes\.yaml:\d+: cannot parse the file/);
});
