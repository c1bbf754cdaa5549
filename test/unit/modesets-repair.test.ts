import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { convertLegacyRoles, isLegacyRoles } from '../../src/modesets/legacy.js';
import { makeProject } from './modesets-helpers.js';

const BROKEN = [
  '# team set',
  'customModes:',
  '  - slug: Data_Analyst!',
  '    name: Data analyst',
  '    roleDefinition: Looks at \u201cdata\u201d\u00a0carefully',
  '    groups: [read, read, teleport, edit]',
  '  - slug: writer',
  '    roleDefinition: Writes',
  '    groups: [read]',
  '',
].join('\n');

test('validate reports errors with line numbers, and repair backs up first then fixes and lists the changes', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  await mkdir(p.roles, { recursive: true });
  await writeFile(join(p.roles, 'team.yaml'), BROKEN);

  const checked = (await p.call('orchestrator_mode_validate', { mode_file: 'team.yaml' })).metadata;
  assert.equal(checked.is_valid, false);
  const errors = checked.errors as { message: string; line?: number }[];
  assert.ok(errors.some((e) => e.line === 3 && /slug/.test(e.message)), JSON.stringify(errors));
  assert.ok(errors.some((e) => e.line === 7 && /name: required/.test(e.message)), JSON.stringify(errors));
  assert.ok(errors.some((e) => /teleport/.test(e.message)));
  assert.equal((checked.validation_details as Record<string, boolean>).role_definitions_complete, false);
  assert.ok((checked.warnings as { line?: number }[]).some((w) => w.line === 5), 'invisible characters are reported with their line');
  assert.ok((checked.repair_suggestions as string[]).length >= 3);
  assert.equal(await readFile(join(p.roles, 'team.yaml'), 'utf8'), BROKEN, 'validating alone changes nothing');

  const repaired = (await p.call('orchestrator_mode_validate', { mode_file: 'team.yaml', repair_if_possible: true })).metadata;
  assert.equal(repaired.repaired, true);
  assert.equal(repaired.was_valid_before_repair, false);
  assert.equal(repaired.is_valid, true, JSON.stringify(repaired.errors));
  const changes = (repaired.repairs_applied as string[]).join('\n');
  assert.match(changes, /invisible/);
  assert.match(changes, /"data-analyst"/);
  assert.match(changes, /teleport/);
  assert.match(changes, /repeated tool group "read"/);
  assert.match(changes, /name set to "Writer"/);

  const backups = await readdir(p.backups);
  assert.equal(backups.length, 1);
  assert.equal(repaired.backup_file, backups[0]);
  const backupText = await readFile(join(p.backups, backups[0]!), 'utf8');
  assert.match(backupText, /reason: pre-repair/);
  assert.match(backupText, /teleport/, 'the backup holds the file as it was before the repair');

  const after = (await p.call('orchestrator_mode_validate', { mode_file: 'team.yaml' })).metadata;
  assert.equal(after.is_valid, true);
  assert.deepEqual(after.custom_roles, ['data-analyst', 'writer']);
  const text = await readFile(join(p.roles, 'team.yaml'), 'utf8');
  assert.match(text, /roleDefinition: "Looks at \\"data\\" carefully"/);
  assert.match(text, /- slug: writer\n {4}name: Writer\n/);

  const again = (await p.call('orchestrator_mode_validate', { mode_file: 'team.yaml', repair_if_possible: true })).metadata;
  assert.equal(again.repaired, false, 'a valid set needs no repair and gets no new backup');
  assert.equal((await readdir(p.backups)).length, 1);
});

test('repair of a file whose only fault is invisible characters keeps its layout and comments', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  await mkdir(p.roles, { recursive: true });
  const text = '# keep me\ncustomModes:\n  - slug: a\n    name: A\u200b\n    roleDefinition: Does\u00a0a\n    groups: []\n';
  await writeFile(join(p.roles, 'inv.yaml'), text);
  const out = (await p.call('orchestrator_mode_validate', { mode_file: 'inv.yaml', repair_if_possible: true })).metadata;
  assert.equal(out.repaired, true);
  assert.equal(await readFile(join(p.roles, 'inv.yaml'), 'utf8'), '# keep me\ncustomModes:\n  - slug: a\n    name: A\n    roleDefinition: Does a\n    groups: []\n');
});

const LEGACY = `task_orchestrator:
  role_definition: You coordinate the specialists.
  specialist_roles:
    architect: Designs systems
    implementer: Writes code
    ghost: Not defined anywhere
architect:
  role_definition: You design systems.
  expertise:
    - Architecture
  approach:
    - Think first
  output_format: A design document
implementer:
  role_definition: You write code.
  tool_groups:
    - read
    - [edit, {file_regex: "\\\\.py$"}]
`;

test('a legacy role file is read, converted to read-only modes unless groups are stated, and reported as legacy-roles', async (t) => {
  const p = await makeProject();
  t.after(() => p.cleanup());
  await mkdir(p.roles, { recursive: true });
  await writeFile(join(p.roles, 'project_roles.yaml'), LEGACY);
  const out = (await p.call('orchestrator_mode_validate', { mode_file: 'project_roles.yaml' })).metadata;
  assert.equal(out.format, 'legacy-roles');
  assert.equal(out.is_valid, true, JSON.stringify(out.errors));
  assert.deepEqual(out.custom_roles, ['task-orchestrator', 'implementer']);
  assert.deepEqual(out.specialist_roles, ['architect']);
  assert.ok((out.warnings as { message: string }[]).some((w) => /ghost/.test(w.message)));

  const list = (await p.call('orchestrator_mode_list', { show_details: true })).metadata;
  const row = (list.available_modes as Record<string, unknown>[])[0];
  assert.equal(row?.format, 'legacy-roles');
  assert.equal(row?.specialist_count, 3);
  await p.call('orchestrator_mode_select', { mode_file: 'project_roles.yaml' });
  assert.equal(await readFile(join(p.sets, 'active_mode_set'), 'utf8'), 'project_roles.yaml\n');
});

test('convertLegacyRoles turns roles into Roo modes and leaves other documents alone', async () => {
  const { readModeFileText } = await import('../../src/modes/mode-file.js');
  const value = readModeFileText(LEGACY, { jsonFallback: false }).value;
  assert.equal(isLegacyRoles(value), true);
  const converted = convertLegacyRoles(value, 'x.yaml') as { customModes: Record<string, unknown>[] };
  const [orchestrator, architect, implementer] = converted.customModes;
  assert.deepEqual(orchestrator, { slug: 'task-orchestrator', name: 'Task Orchestrator', roleDefinition: 'You coordinate the specialists.', groups: ['read'] });
  assert.equal(architect?.description, 'Designs systems');
  assert.equal(architect?.customInstructions, 'Expertise:\n- Architecture\n\nApproach:\n- Think first\n\nOutput format:\nA design document');
  assert.deepEqual(architect?.groups, ['read']);
  assert.deepEqual(implementer?.groups, ['read', ['edit', { fileRegex: '\\.py$' }]]);
  const modern = { customModes: [] };
  assert.equal(convertLegacyRoles(modern, 'y.yaml'), modern);
  assert.equal(convertLegacyRoles('text', 'z.yaml'), 'text');
  assert.equal(isLegacyRoles({ customModes: [], architect: { role_definition: 'x' } }), false);
});
