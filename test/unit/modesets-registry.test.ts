import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../../src/log.js';
import type { ToolCallContext } from '../../src/mcp/tool-types.js';
import { ModeRegistry } from '../../src/modes/registry.js';
import { convertLegacyRoles } from '../../src/modesets/legacy.js';
import { modesetTools } from '../../src/modesets/tools.js';

const ctx: ToolCallContext = { signal: new AbortController().signal, protocolVersion: '2025-06-18', progress: () => undefined };

test('the registry follows the selected set (legacy roles converted) and returns to .roomodes when cleared', async (t) => {
  const top = await mkdtemp(join(tmpdir(), 'modesets-reg-'));
  t.after(() => rm(top, { recursive: true, force: true }));
  const root = join(top, 'project');
  const configDir = join(top, 'config');
  await mkdir(join(root, '.task_orchestrator', 'roles'), { recursive: true });
  await mkdir(configDir, { recursive: true });
  await writeFile(join(root, '.roomodes'), 'customModes:\n  - slug: from-roomodes\n    name: R\n    roleDefinition: r\n    groups: []\n');
  await writeFile(join(root, '.task_orchestrator', 'roles', 'legacy.yaml'), 'reviewer:\n  role_definition: You review code.\n');
  const registry = new ModeRegistry({
    projectRoot: root, configDir, globalModesFile: null, modesetsDir: '.task_orchestrator', convertDocument: convertLegacyRoles,
  }, silentLogger);
  t.after(() => registry.close());
  await registry.load();
  assert.ok(registry.current.get('from-roomodes'));
  const tools = modesetTools({
    projectRoot: () => root, configDir, modesetsDir: '.task_orchestrator', log: silentLogger,
    reload: async () => { await registry.load(); },
  });

  await tools.orchestrator_mode_create!({ mode_name: 'dev', custom_roles: [{ role_name: 'Data Analyst', prompt: 'You analyse data.' }] }, ctx);
  await tools.orchestrator_mode_select!({ mode_file: 'dev.yaml' }, ctx);
  const analyst = registry.current.get('data-analyst');
  assert.equal(analyst?.source, 'project');
  assert.equal(analyst?.file, join(root, '.task_orchestrator', 'roles', 'dev.yaml'));
  assert.equal(registry.current.get('from-roomodes'), undefined, 'the set replaces .roomodes while selected');

  await tools.orchestrator_mode_select!({ mode_file: 'legacy.yaml' }, ctx);
  const reviewer = registry.current.get('reviewer');
  assert.equal(reviewer?.roleDefinition, 'You review code.');
  assert.deepEqual(reviewer?.groups, ['read']);

  await tools.orchestrator_mode_select!({ mode_file: '.roomodes' }, ctx);
  assert.ok(registry.current.get('from-roomodes'));
  assert.equal(registry.current.get('reviewer'), undefined);
});
