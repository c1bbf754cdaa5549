import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runModes } from '../../src/cli/modes.js';
import { runValidate } from '../../src/cli/validate.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/mode-files/', import.meta.url));

function io(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => { out.push(s); }, err: (s: string) => { err.push(s); }, env }, out: () => out.join(''), err: () => err.join('') };
}

async function project(t: { after(fn: () => Promise<void>): void }) {
  const base = await mkdtemp(join(tmpdir(), 'modes-cli-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  await mkdir(join(base, 'project'));
  await mkdir(join(base, 'config'));
  return base;
}

const good = { slug: 'docs', name: 'Docs', roleDefinition: 'Writes docs.', groups: ['read', ['edit', { fileRegex: '\\.md$' }]], whenToUse: 'w' };
const bad = { slug: 'bad one', name: 'Bad', roleDefinition: 'r', groups: [] };

test('modes --json lists every mode in Roo form and the errors with file and line', async (t) => {
  const base = await project(t);
  const file = join(base, 'project', '.roomodes');
  await writeFile(file, `{"customModes": [\n${JSON.stringify(good)},\n${JSON.stringify(bad)}\n]}`);
  const c = io({ HOME: base });
  const code = await runModes(['--json', '--project-root', join(base, 'project'), `--config-dir=${join(base, 'config')}`], c.io);
  assert.equal(code, 0);
  const parsed = JSON.parse(c.out()) as { modes: Record<string, unknown>[]; errors: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(parsed), ['modes', 'errors', 'warnings', 'global_modes_file']);
  assert.deepEqual(parsed.modes.map((m) => m.slug), ['code', 'architect', 'ask', 'debug', 'orchestrator', 'docs']);
  assert.deepEqual(parsed.modes[5], { slug: 'docs', name: 'Docs', source: 'project', file, roleDefinition: 'Writes docs.', whenToUse: 'w', groups: good.groups });
  assert.deepEqual(Object.keys(parsed.modes[0]!), ['slug', 'name', 'source', 'roleDefinition', 'whenToUse', 'description', 'groups']);
  assert.equal(parsed.errors.length, 1);
  assert.equal(parsed.errors[0]!.file, file);
  assert.equal(parsed.errors[0]!.line, 3);
  assert.equal(parsed.errors[0]!.slug, 'bad one');
});

test('modes prints a table and reads the project and config dir from the environment', async (t) => {
  const base = await project(t);
  await writeFile(join(base, 'config', 'modes.yaml'), JSON.stringify({ customModes: [good] }));
  const c = io({ ROO_PROJECT_ROOT: join(base, 'project'), ROO_CONFIG_DIR: join(base, 'config') });
  assert.equal(await runModes([], c.io), 0);
  const lines = c.out().trimEnd().split('\n');
  assert.match(lines[0]!, /^SLUG\s+NAME\s+SOURCE\s+GROUPS\s+FILE$/);
  assert.equal(lines.length, 9);
  assert.equal(lines[8], `Global modes file: ${join(base, 'config', 'modes.yaml')}`);
  assert.match(lines[6]!, /^docs\s+Docs\s+global\s+read, edit\(\\\.md\$\)\s+\S*modes\.yaml$/);
  assert.equal(c.err(), '');
});

test('modes --help prints usage; an unknown option is a usage error', async () => {
  const h = io();
  assert.equal(await runModes(['--help'], h.io), 0);
  assert.match(h.out(), /Usage: roo-modes-server modes/);
  const u = io();
  assert.equal(await runModes(['--bogus'], u.io), 2);
  assert.match(u.err(), /^roo-modes-server modes: unknown option "--bogus"/);
  assert.equal(await runModes(['--project-root'], io().io), 2);
});

test('validate prints file:line:column problems and exits 1, or 0 for clean files', async (t) => {
  const base = await project(t);
  const clean = join(base, 'clean.json');
  const dirty = join(base, 'dirty.json');
  await writeFile(clean, JSON.stringify({ customModes: [good] }));
  await writeFile(dirty, `{"customModes": [\n${JSON.stringify(bad)}\n]}`);
  const ok = io();
  assert.equal(await runValidate([clean], ok.io), 0);
  assert.match(ok.out(), /clean\.json: ok, 1 mode/);
  const no = io();
  assert.equal(await runValidate([clean, dirty], no.io), 1);
  assert.match(no.out(), new RegExp(`^${dirty.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+: mode "bad one" was skipped: slug:`, 'm'));
  const missing = io();
  assert.equal(await runValidate([join(base, 'nope.yaml')], missing.io), 1);
});

test('validate reports a broken mode file with its line and column', async () => {
  const c = io();
  assert.equal(await runValidate([join(FIXTURES, 'broken-flow.roomodes')], c.io), 1);
  assert.match(c.out(), /broken-flow\.roomodes:4:5: cannot parse the file/);
});

test('validate without files checks the project and global files', async (t) => {
  const base = await project(t);
  await writeFile(join(base, 'project', '.roomodes'), JSON.stringify({ customModes: [good] }));
  await writeFile(join(base, 'config', 'custom_modes.yaml'), JSON.stringify({ customModes: [bad] }));
  const c = io({ ROO_PROJECT_ROOT: join(base, 'project'), ROO_CONFIG_DIR: join(base, 'config') });
  assert.equal(await runValidate([], c.io), 1);
  assert.match(c.out(), /\.roomodes: ok, 1 mode/);
  assert.match(c.out(), /custom_modes\.yaml:1:\d+: mode "bad one" was skipped/);
  const empty = await project(t);
  const e = io({ ROO_PROJECT_ROOT: join(empty, 'project'), ROO_CONFIG_DIR: join(empty, 'config') });
  assert.equal(await runValidate([], e.io), 1, 'finding no mode file at all is an error: a CI step in the wrong folder must not pass');
  assert.match(e.err(), /^roo-modes-server validate: no mode file found for the project \S+project \(.*--allow-empty/);
  assert.equal(e.out(), '');
  const allowed = io({ ROO_PROJECT_ROOT: join(empty, 'project'), ROO_CONFIG_DIR: join(empty, 'config') });
  assert.equal(await runValidate(['--allow-empty'], allowed.io), 0);
  assert.match(allowed.out(), /No mode files found/);
  const h = io();
  assert.equal(await runValidate(['--help'], h.io), 0);
  assert.match(h.out(), /Usage: roo-modes-server validate/);
  assert.match(h.out(), /--allow-empty/);
});
