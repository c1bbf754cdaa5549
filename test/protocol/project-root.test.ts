// Run from a subfolder of the project, the built CLI and server work on the project (found by
// walking up to .roomodes, .roo/ or .git) and say so on stderr only; --project-root wins without a
// walk; validate refuses to pass having found no mode file unless --allow-empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProjectRoot } from '../../src/paths/project-root.js';
import { startServer, tempDir } from './harness.js';
import { runCli } from './cli-run.js';

const MODES = 'customModes:\n  - slug: docs-writer\n    name: Docs Writer\n    roleDefinition: You write docs.\n    groups: [read]\n';

/** base/home (HOME), base/proj/.roomodes and base/proj/src/deep (where the commands run). */
function layout(t: Parameters<typeof tempDir>[0]): { home: string; proj: string; deep: string; base: string } {
  const base = tempDir(t, 'rms-walk-');
  const home = join(base, 'home');
  const proj = join(base, 'proj');
  const deep = join(proj, 'src', 'deep');
  mkdirSync(home, { recursive: true });
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(proj, '.roomodes'), MODES);
  return { home, proj, deep, base };
}

const NOTICE = /^roo-modes-server: using the project at (\S+) \(found \.roomodes above \S+; --project-root overrides\)$/m;

test('validate and modes run in a subfolder check the project\'s .roomodes and name the project on stderr', async (t) => {
  const { home, proj, deep } = layout(t);
  const v = await runCli(['validate'], { home, cwd: deep });
  assert.equal(v.code, 0, v.stderr);
  assert.match(v.stdout, new RegExp(`^${proj.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.roomodes: ok, 1 mode$`, 'm'));
  assert.equal(NOTICE.exec(v.stderr)?.[1], proj);
  assert.doesNotMatch(v.stdout, /using the project/, 'the notice never goes to stdout');
  const m = await runCli(['modes', '--json'], { home, cwd: deep });
  assert.equal(m.code, 0, m.stderr);
  assert.ok((JSON.parse(m.stdout) as { modes: { slug: string }[] }).modes.some((x) => x.slug === 'docs-writer'));
  assert.equal(NOTICE.exec(m.stderr)?.[1], proj);
  // Where the command runs in the project itself, there is nothing to say.
  const here = await runCli(['validate'], { home, cwd: proj });
  assert.equal(here.code, 0);
  assert.doesNotMatch(here.stderr, /using the project/);
});

test('--project-root and ROO_PROJECT_ROOT win without a walk: the named folder is the project', async (t) => {
  const { home, deep } = layout(t);
  const flag = await runCli(['validate', '--project-root', deep], { home, cwd: deep });
  assert.equal(flag.code, 1, 'the subfolder named as the project holds no mode file');
  assert.match(flag.stderr, /no mode file found for the project \S+deep /);
  assert.doesNotMatch(flag.stderr, /using the project/);
  const env = await runCli(['modes', '--json'], { home, cwd: deep, env: { ROO_PROJECT_ROOT: deep } });
  assert.ok(!(JSON.parse(env.stdout) as { modes: { slug: string }[] }).modes.some((x) => x.slug === 'docs-writer'));
  assert.doesNotMatch(env.stderr, /using the project/);
});

test('validate in a folder with no mode file anywhere exits 1 with a clear message; --allow-empty makes it 0', async (t) => {
  const base = tempDir(t, 'rms-empty-');
  const home = join(base, 'home');
  const empty = join(base, 'nothing', 'here');
  mkdirSync(home, { recursive: true });
  mkdirSync(empty, { recursive: true });
  // The machine's own folders above the temp dir could hold a marker; then this case cannot be shown here.
  if (findProjectRoot(empty, { homeDir: home }).marker !== null) { t.skip('a folder above the temp dir is marked as a project'); return; }
  const v = await runCli(['validate'], { home, cwd: empty });
  assert.equal(v.code, 1);
  assert.equal(v.stdout, '');
  assert.match(v.stderr, /^roo-modes-server validate: no mode file found for the project \S+here .*--allow-empty if having none is fine$/m);
  const ok = await runCli(['validate', '--allow-empty'], { home, cwd: empty });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, 'No mode files found.\n');
});

test('a .git file (a worktree) marks the project for the commands too', async (t) => {
  const base = tempDir(t, 'rms-wt-');
  const home = join(base, 'home');
  const wt = join(base, 'wt');
  const lib = join(wt, 'lib');
  mkdirSync(home, { recursive: true });
  mkdirSync(lib, { recursive: true });
  writeFileSync(join(wt, '.git'), 'gitdir: /nowhere/.git/worktrees/wt\n');
  const v = await runCli(['validate', '--allow-empty'], { home, cwd: lib });
  assert.equal(v.code, 0, v.stderr);
  assert.match(v.stderr, new RegExp(`using the project at ${wt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(found \\.git above `));
  // A .roomodes put there later is what validate then checks.
  writeFileSync(join(wt, '.roomodes'), MODES);
  const again = await runCli(['validate'], { home, cwd: lib });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /wt\/\.roomodes: ok, 1 mode/);
});

test('serve over stdio started in a subfolder lists the project\'s modes; the notice is on stderr, stdout stays protocol', async (t) => {
  const { home, proj, deep } = layout(t);
  const s = startServer(t, { cwd: deep, env: { HOME: home } });
  await s.initialize('2025-06-18');
  const listed = (await s.tool(1, 'list_modes')).result;
  assert.ok(listed.structuredContent.modes.some((m: { slug: string }) => m.slug === 'docs-writer'), JSON.stringify(listed.structuredContent.modes.map((m: { slug: string }) => m.slug)));
  s.assertStdoutPure();
  await s.end();
  assert.equal(NOTICE.exec(s.stderr)?.[1], proj);
});

test('add-to-mcp-config run in a subfolder writes the project\'s .mcp.json, not one in the subfolder', async (t) => {
  const { home, proj, deep } = layout(t);
  const r = await runCli(['add-to-mcp-config', '--client', 'claude-code'], { home, cwd: deep, env: { PATH: '' } });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(join(proj, '.mcp.json')));
  assert.ok(!existsSync(join(deep, '.mcp.json')));
  assert.equal(NOTICE.exec(r.stderr)?.[1], proj);
});

test('export and call run in a subfolder work on the project: the agents land in it, the tool lists its modes', async (t) => {
  const { home, proj, deep } = layout(t);
  const e = await runCli(['export', '--to', 'claude-code'], { home, cwd: deep });
  assert.equal(e.code, 0, e.stdout + e.stderr);
  assert.ok(existsSync(join(proj, '.claude', 'agents', 'docs-writer.md')), e.stdout);
  assert.ok(!existsSync(join(deep, '.claude')), 'nothing is written into the subfolder');
  assert.equal(NOTICE.exec(e.stderr)?.[1], proj);
  const c = await runCli(['call', 'list_modes'], { home, cwd: deep });
  assert.equal(c.code, 0, c.stderr);
  assert.match(c.stdout, /docs-writer/);
  assert.equal(NOTICE.exec(c.stderr)?.[1], proj, 'call says which project the server it starts uses');
});
