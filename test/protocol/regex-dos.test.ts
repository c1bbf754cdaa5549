// A mode file's fileRegex cannot stall the server: patterns V8's linear engine cannot run are
// refused at load; those that backtrack polynomially are switched to that engine at run time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MAIN, startServer, tempDir } from './harness.js';

const run = promisify(execFile);

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

const LOOKAROUND_MODES = [
  'customModes:',
  '  - slug: notes',
  '    name: Notes',
  '    roleDefinition: Takes notes.',
  '    groups: [read, [edit, {fileRegex: "\\\\.md$"}]]',
  '  - slug: docs',
  '    name: Docs',
  '    roleDefinition: Writes the documentation.',
  '    groups: [read, [edit, {fileRegex: "(?=.*.*.*.*.*.*x)"}]]',
].join('\n');

test('refuses at load a fileRegex with a lookahead, naming the file, the line and the reason', async (t) => {
  const root = tempDir(t);
  const file = join(root, '.roomodes');
  writeFileSync(file, LOOKAROUND_MODES);
  const out = await run(process.execPath, [MAIN, 'validate', file]).then(
    (r) => ({ code: 0, text: r.stdout + r.stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, text: err.stdout + err.stderr }),
  );
  assert.equal(out.code, 1, out.text);
  assert.match(out.text, /\.roomodes:6\b/, `the refused mode's line: ${out.text}`);
  assert.match(out.text, /docs/);
  assert.match(out.text, /lookahead \(\?= at position 1.*linear-time engine/, out.text);
});

test('a lookahead fileRegex cannot stall validate_tool_use: the mode is refused, and the check and a ping behind it are answered', async (t) => {
  const root = tempDir(t);
  writeFileSync(join(root, '.roomodes'), LOOKAROUND_MODES);
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize();
  const created = await s.tool('c', 'create_task', { mode_slug: 'notes' });
  const session = created.result.metadata.session_id as string;
  // One write: switch into the hostile mode, check a 4,000-character path in it, then ping. Before
  // the fix the mode loaded and the check backtracked for minutes on the event loop, so neither
  // answer came (the harness gives up after 10 s); no other timer is involved.
  const lines = [
    { jsonrpc: '2.0', id: 'd', method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: 'docs' } } },
    { jsonrpc: '2.0', id: 's', method: 'tools/call', params: { name: 'switch_mode', arguments: { session_id: session, new_mode_slug: 'docs' } } },
    { jsonrpc: '2.0', id: 'v', method: 'tools/call', params: { name: 'validate_tool_use', arguments: { session_id: session, tool_name: 'write_to_file', file_path: 'a'.repeat(4000) } } },
    { jsonrpc: '2.0', id: 'p', method: 'ping' },
  ];
  s.write(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const [d, sw, v, ping] = await Promise.all(['d', 's', 'v', 'p'].map((id) => s.response(id)));
  assert.equal(d!.error?.code, -32001, 'the hostile mode was not loaded');
  assert.equal(sw!.error?.code, -32001);
  assert.equal(v!.result.metadata.mode, 'notes');
  assert.equal(v!.result.metadata.allowed, false);
  assert.deepEqual(ping!.result, {});
});
