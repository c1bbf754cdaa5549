import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalogue } from '../../src/modes/catalogue.js';

const SET = 'customModes:\n  - slug: outsider\n    name: Outsider\n    roleDefinition: Lives elsewhere.\n    groups: [read]\n';

test('never loads an active mode set whose file leads outside the project through a link', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'cat-links-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const root = join(base, 'project');
  const roles = join(root, '.task_orchestrator', 'roles');
  await mkdir(roles, { recursive: true });
  await mkdir(join(base, 'outside'));
  await writeFile(join(base, 'outside', 'evil.yaml'), SET);
  await symlink(join(base, 'outside', 'evil.yaml'), join(roles, 'evil.yaml'));
  await writeFile(join(root, '.task_orchestrator', 'active_mode_set'), 'evil.yaml\n');
  const cat = await loadCatalogue({ projectRoot: root, configDir: join(base, 'cfg'), globalModesFile: null });
  assert.equal(cat.get('outsider'), undefined);
  assert.ok(cat.notices.some((n) => /outside the project/.test(n.message)), JSON.stringify(cat.notices));
});

test('ignores a pointer naming a file of another type', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'cat-links-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const roles = join(base, '.task_orchestrator', 'roles');
  await mkdir(roles, { recursive: true });
  await writeFile(join(roles, 'notes.txt'), SET);
  await writeFile(join(base, '.task_orchestrator', 'active_mode_set'), 'notes.txt');
  const cat = await loadCatalogue({ projectRoot: base, configDir: join(base, 'cfg'), globalModesFile: null });
  assert.equal(cat.get('outsider'), undefined);
});
