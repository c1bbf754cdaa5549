// A mode file's fileRegex cannot stall the server: patterns the static checks let through but
// that backtrack polynomially are switched to V8's linear engine at run time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir } from './harness.js';

test('answers promptly when a loaded fileRegex backtracks polynomially on a long path', async (t) => {
  const root = tempDir(t);
  writeFileSync(join(root, '.roomodes'), [
    'customModes:',
    '  - slug: docs',
    '    name: Docs',
    '    roleDefinition: Writes the documentation.',
    '    groups: [read, [edit, {fileRegex: ".*.*.*.*="}]]',
  ].join('\n'));
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize();
  const created = await s.tool('c', 'create_task', { mode_slug: 'docs' });
  const session = created.result.metadata.session_id;
  const started = Date.now();
  const res = await s.tool('v', 'validate_tool_use', { session_id: session, tool_name: 'write_to_file', file_path: 'a'.repeat(4000) });
  assert.equal(res.result.metadata.allowed, false);
  assert.deepEqual((await s.call('p', 'ping')).result, {});
  // Without the fallback this takes minutes; the bound is generous for a loaded 2-core machine.
  assert.ok(Date.now() - started < 3000, `answered in ${Date.now() - started} ms`);
});
