import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeProject, rpcError } from './modesets-helpers.js';

test('create → validate → select → list → backup → edit → restore brings the original back', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());

  const created = await p.call('orchestrator_mode_create', {
    mode_name: 'research',
    custom_roles: [
      { role_name: 'Data Analyst', prompt: 'You analyse data sets and report findings.', description: 'Numbers and charts' },
      { role_name: 'Literature Reviewer', prompt: 'You read papers and summarise them: "claims", methods,\nand limits.' },
    ],
    mode_settings: { default_complexity: 'complex', auto_task_routing: false },
  });
  const c = created.metadata;
  assert.equal(c.mode_file, 'research.yaml');
  assert.equal(c.file_path, join(p.roles, 'research.yaml'));
  assert.equal(c.total_roles, 7);
  assert.equal(c.specialist_role_count, 5);
  assert.equal(c.custom_role_count, 2);
  assert.deepEqual(c.custom_roles, ['data-analyst', 'literature-reviewer']);
  assert.equal(c.validation_status, 'valid');
  assert.deepEqual(c.settings, { default_complexity: 'complex', auto_task_routing: false, task_distribution: 'balanced' });

  const validated = (await p.call('orchestrator_mode_validate', { mode_file: 'research.yaml' })).metadata;
  assert.equal(validated.is_valid, true);
  assert.deepEqual(validated.validation_details, { yaml_syntax_valid: true, required_roles_present: true, role_definitions_complete: true, custom_roles_valid: true });
  assert.deepEqual(validated.specialist_roles, ['code', 'architect', 'ask', 'debug', 'orchestrator']);
  assert.deepEqual(validated.custom_roles, ['data-analyst', 'literature-reviewer']);
  assert.deepEqual(validated.errors, []);

  const selected = (await p.call('orchestrator_mode_select', { mode_file: 'research.yaml' })).metadata;
  assert.equal(selected.mode_activated, 'research.yaml');
  assert.equal('previous_mode' in selected, false);
  assert.equal(await readFile(join(p.sets, 'active_mode_set'), 'utf8'), 'research.yaml\n');
  assert.equal(p.reloads, 1);
  assert.equal(typeof selected.backup_location, 'string', 'a set existed, so the state was backed up first');
  const details = selected.mode_details as Record<string, unknown>;
  assert.deepEqual(details.custom_roles, ['data-analyst', 'literature-reviewer']);

  const listed = (await p.call('orchestrator_mode_list')).metadata;
  assert.equal(listed.current_mode, 'research.yaml');
  const rows = listed.available_modes as Record<string, unknown>[];
  assert.deepEqual(rows.map((r) => [r.filename, r.status, r.is_current, r.specialist_count]), [['research.yaml', 'valid', true, 7]]);
  assert.equal((listed.config_templates as Record<string, unknown>[])[0]?.filename, 'default_roles.yaml');

  const original = await readFile(join(p.roles, 'research.yaml'), 'utf8');
  const backup = (await p.call('orchestrator_mode_backup', { backup_name: 'before-edit' })).metadata;
  assert.match(backup.backup_file as string, /^mode_backup_\d{8}_\d{6}_before-edit(_\d+)?\.yaml$/);
  assert.deepEqual(backup.sets_backed_up, ['research.yaml']);
  assert.equal(backup.active_mode_set, 'research.yaml');

  await writeFile(join(p.roles, 'research.yaml'), 'customModes: []\n');
  await p.call('orchestrator_mode_select', { mode_file: '.roomodes' });
  assert.deepEqual(await readdir(p.sets).then((n) => n.includes('active_mode_set')), false);
  const reloadsBefore = p.reloads;

  const restored = (await p.call('orchestrator_mode_restore', { backup_file: backup.backup_file })).metadata;
  assert.deepEqual(restored.restored_files, ['research.yaml']);
  assert.equal(restored.session_binding_restored, true);
  assert.equal(restored.active_mode_set, 'research.yaml');
  assert.equal(await readFile(join(p.roles, 'research.yaml'), 'utf8'), original);
  assert.equal(await readFile(join(p.sets, 'active_mode_set'), 'utf8'), 'research.yaml\n');
  assert.ok(p.reloads > reloadsBefore, 'restoring the binding reloads the modes');
  assert.equal(typeof restored.safety_backup_location, 'string', 'the edited file was backed up before being overwritten');
  const safety = await readFile(restored.safety_backup_location as string, 'utf8');
  assert.match(safety, /customModes: \[\]/);
});

test('create refuses to overwrite an existing set and leaves it unchanged', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  await p.call('orchestrator_mode_create', { mode_name: 'dev' });
  const before = await readFile(join(p.roles, 'dev.yaml'), 'utf8');
  const err = await rpcError(() => p.call('orchestrator_mode_create', { mode_name: 'dev', custom_roles: [{ role_name: 'x', prompt: 'y' }] }));
  assert.equal(err.code, -32004);
  assert.equal((err.data as Record<string, unknown>).error_type, 'already_exists');
  assert.equal(await readFile(join(p.roles, 'dev.yaml'), 'utf8'), before);
});

test('select copies a missing set from the templates, or answers -32004 listing sets when asked not to', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  const err = await rpcError(() => p.call('orchestrator_mode_select', { mode_file: 'default_roles.yaml', auto_copy_if_missing: false }));
  assert.equal(err.code, -32004);
  assert.deepEqual((err.data as Record<string, unknown>).available, []);
  const out = (await p.call('orchestrator_mode_select', { mode_file: 'default_roles.yaml' })).metadata;
  assert.equal(out.copied_from_template, 'default_roles.yaml');
  assert.equal('backup_location' in out, false, 'nothing existed to back up');
  assert.match(await readFile(join(p.roles, 'default_roles.yaml'), 'utf8'), /slug: orchestrator/);
  const unknown = await rpcError(() => p.call('orchestrator_mode_select', { mode_file: 'nope.yaml' }));
  assert.equal(unknown.code, -32004);
  assert.deepEqual((unknown.data as Record<string, unknown>).available, ['default_roles.yaml']);
});

test('select refuses an invalid set when validate_first, and takes it when told not to validate', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  await p.call('orchestrator_mode_create', { mode_name: 'seed' });
  await writeFile(join(p.roles, 'broken.yaml'), 'customModes:\n  - slug: ok\n    name: Ok\n    roleDefinition: fine\n    groups: [read]\n  - slug: bad slug\n    name: Bad\n    roleDefinition: x\n    groups: [read]\n');
  const err = await rpcError(() => p.call('orchestrator_mode_select', { mode_file: 'broken.yaml' }));
  assert.equal(err.code, -32004);
  const data = err.data as Record<string, unknown>;
  assert.equal(data.error_type, 'invalid_mode_set');
  assert.equal(data.line, 6);
  assert.ok(Array.isArray(data.recovery_suggestions));
  assert.equal(p.reloads, 0);
  await p.call('orchestrator_mode_select', { mode_file: 'broken.yaml', validate_first: false });
  assert.equal(await readFile(join(p.sets, 'active_mode_set'), 'utf8'), 'broken.yaml\n');
});

test('list hides invalid sets unless asked, and always shows the current one', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  await p.call('orchestrator_mode_create', { mode_name: 'good' });
  await writeFile(join(p.roles, 'bad.yaml'), 'customModes: [\n');
  const plain = (await p.call('orchestrator_mode_list')).metadata;
  assert.deepEqual((plain.available_modes as Record<string, unknown>[]).map((r) => r.filename), ['good.yaml']);
  assert.equal(plain.hidden_invalid_count, 1);
  const all = (await p.call('orchestrator_mode_list', { include_invalid: true, show_details: true })).metadata;
  const bad = (all.available_modes as Record<string, unknown>[]).find((r) => r.filename === 'bad.yaml');
  assert.equal(bad?.status, 'invalid');
  assert.match(String(bad?.error), /YAML/);
});
