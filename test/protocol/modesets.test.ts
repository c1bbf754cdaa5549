// The six mode-set tools through the built server: create → validate → select → list → backup →
// edit → restore, repair, a legacy role file, and refused paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir, type ServerProcess } from './harness.js';

function project(t: Parameters<typeof tempDir>[0]): { root: string; roles: string } {
  const root = tempDir(t, 'rms-sets-');
  return { root, roles: join(root, '.task_orchestrator', 'roles') };
}

async function ok(s: ServerProcess, id: string, name: string, args: Record<string, unknown>): Promise<any> {
  const res = await s.tool(id, name, args);
  assert.ok(res.result && !res.result.isError, `${name} failed: ${JSON.stringify(res.error ?? res.result)}`);
  assert.deepEqual(res.result.structuredContent, res.result.metadata);
  return res.result.metadata;
}

test('creates, validates, selects, lists, backs up and restores a mode set end to end', async (t) => {
  const { root, roles } = project(t);
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize();
  const created = await ok(s, 'c', 'orchestrator_mode_create', {
    mode_name: 'development',
    custom_roles: [
      { role_name: 'Data Wrangler', prompt: 'You clean and reshape data sets.', description: 'Cleans data' },
      { role_name: 'Release Manager', prompt: 'You prepare and ship releases.', description: 'Ships releases' },
    ],
  });
  assert.equal(created.custom_role_count, 2);
  assert.equal(created.specialist_role_count, 5);
  const file = join(roles, 'development.yaml');
  const original = readFileSync(file, 'utf8');

  const again = await s.tool('c2', 'orchestrator_mode_create', { mode_name: 'development' });
  assert.equal(again.error?.code, -32004, 'never overwrites an existing set');
  assert.equal(readFileSync(file, 'utf8'), original);

  const validated = await ok(s, 'v', 'orchestrator_mode_validate', { mode_file: 'development.yaml' });
  assert.equal(validated.is_valid, true);

  const selected = await ok(s, 's', 'orchestrator_mode_select', { mode_file: 'development.yaml' });
  assert.match(JSON.stringify(selected.mode_activated), /development/);
  await s.waitFor((m) => m.method === 'notifications/resources/list_changed', 10000, 'list_changed after select');
  assert.equal(readFileSync(join(root, '.task_orchestrator', 'active_mode_set'), 'utf8').trim(), 'development.yaml');

  const listed = await ok(s, 'l', 'orchestrator_mode_list', {});
  const entry = listed.available_modes.find((m: any) => m.filename === 'development.yaml');
  assert.equal(entry?.is_current, true);

  const modes = await ok(s, 'm', 'list_modes', {});
  const wrangler = modes.modes.find((m: any) => m.slug === 'data-wrangler');
  assert.equal(wrangler?.source, 'project');

  const backup = await ok(s, 'b', 'orchestrator_mode_backup', { backup_name: 'before-edit' });
  assert.match(backup.backup_file, /^mode_backup_\d{8}_\d{6}_before-edit\.yaml$/);

  writeFileSync(file, original.replace('You clean and reshape data sets.', 'Edited by hand.'));
  const restored = await ok(s, 'r', 'orchestrator_mode_restore', { backup_file: backup.backup_file });
  assert.ok(Array.isArray(restored.restored_files));
  assert.equal(readFileSync(file, 'utf8'), original, 'the original content is back');
  s.assertStdoutPure();
});

test('repairs a broken set after backing it up, and says what it changed', async (t) => {
  const { root, roles } = project(t);
  mkdirSync(roles, { recursive: true });
  writeFileSync(join(roles, 'broken.yaml'), [
    'customModes:',
    '  - slug: "data wrangler"',
    '    roleDefinition: "You\u200b clean data."',
    '    groups: [read, read, telepathy]',
  ].join('\n'));
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize();
  const before = await ok(s, 'v1', 'orchestrator_mode_validate', { mode_file: 'broken.yaml' });
  assert.equal(before.is_valid, false);
  assert.ok(before.errors.some((e: any) => typeof e.line === 'number'), 'errors carry line numbers');
  const repaired = await ok(s, 'v2', 'orchestrator_mode_validate', { mode_file: 'broken.yaml', repair_if_possible: true });
  assert.match(JSON.stringify(repaired), /backup/i);
  const after = await ok(s, 'v3', 'orchestrator_mode_validate', { mode_file: 'broken.yaml' });
  assert.equal(after.is_valid, true, JSON.stringify(after.errors));
});

test('reads a legacy role file as modes and can select it', async (t) => {
  const { root, roles } = project(t);
  mkdirSync(roles, { recursive: true });
  writeFileSync(join(roles, 'legacy_roles.yaml'), [
    'task_orchestrator:',
    '  specialist_roles:',
    '    architect: "Designs the system"',
    '    implementer: "Writes the code"',
    'implementer:',
    '  role_definition: "You implement features carefully."',
    '  expertise: ["TypeScript", "Testing"]',
    '  approach: ["Small steps"]',
    '  output_format: "Working code with tests"',
  ].join('\n'));
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize();
  const listed = await ok(s, 'l', 'orchestrator_mode_list', { show_details: true });
  assert.match(JSON.stringify(listed), /legacy-roles/);
  await ok(s, 's', 'orchestrator_mode_select', { mode_file: 'legacy_roles.yaml' });
  const info = await ok(s, 'i', 'get_mode_info', { mode_slug: 'implementer' });
  assert.equal(info.source, 'project');
  assert.equal(info.tool_groups.edit.enabled, false, 'legacy roles are read-only unless stated');
});

test('refuses every path outside the mode-set folders with -32006', async (t) => {
  const { root, roles } = project(t);
  mkdirSync(roles, { recursive: true });
  const outside = tempDir(t, 'rms-outside-');
  writeFileSync(join(outside, 'evil.yaml'), 'customModes: []\n');
  symlinkSync(join(outside, 'evil.yaml'), join(roles, 'evil.yaml'));
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize();
  const cases: [string, Record<string, unknown>][] = [
    ['orchestrator_mode_select', { mode_file: '/etc/passwd' }],
    ['orchestrator_mode_select', { mode_file: '../../x.yaml' }],
    ['orchestrator_mode_select', { mode_file: 'evil.yaml' }],
    ['orchestrator_mode_validate', { mode_file: 'a\u0001b.yaml' }],
    ['orchestrator_mode_create', { mode_name: 'x', template_source: '../../../etc/passwd' }],
    ['orchestrator_mode_restore', { backup_file: '../roles/evil.yaml' }],
  ];
  let n = 0;
  for (const [name, args] of cases) {
    const res = await s.tool(`p${n++}`, name, args);
    assert.equal(res.error?.code, -32006, `${name} ${JSON.stringify(args)} → ${JSON.stringify(res.error ?? res.result)}`);
  }
  assert.deepEqual((await s.call('after', 'ping')).result, {});
});
