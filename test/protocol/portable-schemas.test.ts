// tools/list from the built server, with and without the roo_ipc_* tools and in both error styles,
// holds only portable schemas; results leave absent facts out instead of sending null.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir } from './harness.js';
import { portabilityProblems } from '../schema-portability.js';

type Tool = { name: string; inputSchema: unknown; outputSchema?: unknown };

for (const [label, ipc, toolErrors] of [['without IPC', false, 'jsonrpc'], ['with the roo_ipc_* tools', true, 'jsonrpc'], ['with tool_errors "result"', true, 'result']] as const) {
  test(`every listed tool schema is portable (${label})`, async (t) => {
    const dir = tempDir(t);
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ server: { tool_errors: toolErrors } }));
    // A socket nobody listens on is enough: the roo_ipc_* tools are listed once a target is set.
    const env = ipc ? { ROO_CODE_IPC_SOCKET_PATH: join(dir, 'roo.sock') } : { ROO_CODE_IPC_SOCKET_PATH: undefined };
    const s = startServer(t, { args: ['--config', config, '--config-dir', join(dir, 'none'), '--project-root', dir], env });
    await s.initialize('2025-11-25');
    const res = await s.call(2, 'tools/list', {});
    const tools = res.result.tools as Tool[];
    assert.equal(tools.some((x) => x.name.startsWith('roo_ipc_')), ipc);
    const problems = tools.flatMap((x) => [
      ...portabilityProblems(x.inputSchema, `${x.name}.inputSchema`),
      ...portabilityProblems(x.outputSchema, `${x.name}.outputSchema`),
    ]);
    assert.deepEqual(problems, []);
  });
}

test('validate_tool_use on an unknown tool leaves group out instead of sending null', async (t) => {
  const dir = tempDir(t);
  const s = startServer(t, { args: ['--config-dir', join(dir, 'none'), '--project-root', dir] });
  await s.initialize('2025-11-25');
  const created = await s.tool(2, 'create_task', { mode_slug: 'code' });
  const session = created.result.structuredContent.session_id as string;
  const res = await s.tool(3, 'validate_tool_use', { session_id: session, tool_name: 'no_such_tool' });
  const out = res.result.structuredContent as Record<string, unknown>;
  assert.equal(out.allowed, false);
  assert.equal('group' in out, false, JSON.stringify(out));
  assert.deepEqual(Object.entries(out).filter(([, v]) => v === null), []);
});
