// validate_tool_use's answers about names (issue 24): an unknown name is "unknown tool" with the
// nearest known names, not a restriction of the mode; a tool that takes no file is judged without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startServer, tempDir } from './harness.js';

test('validate_tool_use: unknown names, tools that take no file, and current Claude Code names', async (t) => {
  const dir = tempDir(t);
  const s = startServer(t, { args: ['--config-dir', join(dir, 'none'), '--project-root', dir] });
  await s.initialize('2025-11-25');
  const session = (await s.tool(1, 'create_task', { mode_slug: 'ask' })).result.structuredContent.session_id as string;
  let id = 2;
  const ask = async (args: Record<string, unknown>): Promise<{ text: string; out: Record<string, unknown> }> => {
    const res = await s.tool(id++, 'validate_tool_use', { session_id: session, ...args });
    return { text: res.result.content[0].text as string, out: res.result.structuredContent as Record<string, unknown> };
  };

  const unknown = await ask({ tool_name: 'execute_comand', file_path: 'src/a.ts' });
  assert.equal(unknown.out.allowed, false);
  assert.equal(unknown.out.error, 'UNKNOWN_TOOL');
  assert.match(unknown.out.reason as string, /^Unknown tool "execute_comand": .* Closest known names: execute_command\b/);
  assert.ok(unknown.text.length < 400, `${unknown.text.length} characters: ${unknown.text}`);
  assert.equal('file_path' in unknown.out, false);
  assert.doesNotMatch(unknown.text, /src\/a\.ts/);

  // A command takes no file: the answer is about the tool alone and does not echo the path.
  const command = await ask({ tool_name: 'execute_command', file_path: '../../etc/passwd' });
  assert.equal(command.out.error, 'TOOL_RESTRICTION_ERROR');
  assert.equal('file_path' in command.out, false);
  assert.doesNotMatch(command.text, /passwd/);
  // A file tool still shows (and judges) its file.
  const read = await ask({ tool_name: 'read_file', file_path: '../../etc/passwd' });
  assert.equal(read.out.error, 'FILE_RESTRICTION_ERROR');
  assert.equal(read.out.file_path, '../../etc/passwd');

  for (const [tool_name, group, allowed] of [['PowerShell', 'command', false], ['LSP', 'read', true], ['Agent', 'always', true], ['MultiEdit', 'edit', false]] as const) {
    const r = await ask({ tool_name });
    assert.deepEqual([r.out.group, r.out.allowed], [group, allowed], tool_name);
  }
  // With enforce the unknown name is still refused (fail closed), saying it is unknown.
  const enforced = await s.tool(id++, 'validate_tool_use', { session_id: session, tool_name: 'execute_comand', enforce: true });
  const failed = enforced.result?.isError ? enforced.result.structuredContent : enforced.error?.data;
  assert.ok(failed, JSON.stringify(enforced));
  assert.equal((failed as Record<string, unknown>).error, 'UNKNOWN_TOOL');
});
