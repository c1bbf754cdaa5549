import assert from 'node:assert/strict';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeProject, rpcError, type Project } from './modesets-helpers.js';

const BAD_NAMES = [
  '/etc/passwd', '../outside.yaml', '..', 'roles/../../x.yaml', 'sub/dir.yaml', 'back\\slash.yaml',
  'C:\\win.yaml', 'with space.yaml', 'semi;colon.yaml', 'new\nline.yaml', 'nul\u0000.yaml', '.hidden.yaml',
  '-dash.yaml', 'star*.yaml', 'ümlaut.yaml', 'a..b.yaml', `${'x'.repeat(200)}.yaml`,
];

async function expectRefused(p: Project, tool: string, args: Record<string, unknown>): Promise<void> {
  const err = await rpcError(() => p.call(tool, args));
  assert.equal(err.code, -32006, `${tool} ${JSON.stringify(args)} answered ${err.code} ${err.message}`);
  const data = err.data as Record<string, unknown>;
  assert.equal(data.error_type, 'path_restricted');
  assert.ok(Array.isArray(data.recovery_suggestions));
}

test('refuses absolute paths, "..", separators and odd characters in every file argument with -32006', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  for (const name of BAD_NAMES) {
    await expectRefused(p, 'orchestrator_mode_select', { mode_file: name });
    await expectRefused(p, 'orchestrator_mode_validate', { mode_file: name });
    await expectRefused(p, 'orchestrator_mode_create', { mode_name: name.replace(/\.yaml$/, '') || '..' });
    await expectRefused(p, 'orchestrator_mode_create', { mode_name: 'ok', template_source: name });
    await expectRefused(p, 'orchestrator_mode_restore', { backup_file: name });
    await expectRefused(p, 'orchestrator_mode_backup', { backup_name: name.replace(/\.yaml$/, '') || '..' });
  }
  // Nothing was created for any refused name.
  const roles = await readdir(p.roles).catch(() => []);
  assert.deepEqual(roles, []);
});

test('refuses a set that is a symlink leading outside roles/, for select and validate (also when dangling)', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  const secret = join(p.root, '..', 'secret.yaml');
  await writeFile(secret, 'customModes: []\n');
  await mkdir(p.roles, { recursive: true });
  await symlink(secret, join(p.roles, 'linked.yaml'));
  await expectRefused(p, 'orchestrator_mode_select', { mode_file: 'linked.yaml' });
  await expectRefused(p, 'orchestrator_mode_validate', { mode_file: 'linked.yaml', repair_if_possible: true });
  await symlink(join(p.root, '..', 'missing.yaml'), join(p.roles, 'dangling.yaml'));
  await expectRefused(p, 'orchestrator_mode_select', { mode_file: 'dangling.yaml' });
});

test('refuses a template that is a symlink leading outside the template folder', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  await mkdir(join(p.configDir, 'mode-templates'), { recursive: true });
  await writeFile(join(p.root, '..', 'elsewhere.yaml'), 'customModes: []\n');
  await symlink(join(p.root, '..', 'elsewhere.yaml'), join(p.configDir, 'mode-templates', 'evil.yaml'));
  await expectRefused(p, 'orchestrator_mode_create', { mode_name: 'x', template_source: 'evil.yaml' });
  await expectRefused(p, 'orchestrator_mode_select', { mode_file: 'evil.yaml' });
});

test('refuses a backup that is a symlink leading outside backups/', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  await mkdir(p.backups, { recursive: true });
  await writeFile(join(p.root, '..', 'b.yaml'), 'backup_format: 1\nfiles: []\n');
  await symlink(join(p.root, '..', 'b.yaml'), join(p.backups, 'mode_backup_20250101_000000.yaml'));
  await expectRefused(p, 'orchestrator_mode_restore', { backup_file: 'mode_backup_20250101_000000.yaml' });
});

test('refuses to work when the mode-sets folder itself is a symlink leading outside the project', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  const outside = join(p.root, '..', 'outside-sets');
  await mkdir(join(outside, 'roles'), { recursive: true });
  await writeFile(join(outside, 'roles', 'x.yaml'), 'customModes: []\n');
  await symlink(outside, p.sets);
  await expectRefused(p, 'orchestrator_mode_select', { mode_file: 'x.yaml' });
  await expectRefused(p, 'orchestrator_mode_create', { mode_name: 'y' });
  await expectRefused(p, 'orchestrator_mode_backup', {});
  assert.deepEqual(await readdir(join(outside, 'roles')), ['x.yaml']);
});

test('a symlink to another set inside roles/ is allowed', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  await p.call('orchestrator_mode_create', { mode_name: 'real' });
  await symlink(join(p.roles, 'real.yaml'), join(p.roles, 'alias.yaml'));
  const out = (await p.call('orchestrator_mode_validate', { mode_file: 'alias.yaml' })).metadata;
  assert.equal(out.is_valid, true);
});
