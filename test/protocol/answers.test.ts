// Answers that explain themselves, through the built server: hints in error messages, skipped
// modes reported by list_modes, edit tools without a file, tolerated argument keys, a quiet
// default log, modes --matrix, no roots warning for a client that left, and progress.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileSchema } from '../../src/schema/validate.js';
import { runCli } from './cli-run.js';
import { startServer, tempDir, type Msg, type ServerProcess } from './harness.js';
import { startRig } from './ipc-rig.js';

type Ctx = Parameters<typeof startServer>[0];

async function project(t: Ctx, roomodes?: string, args: string[] = []): Promise<{ s: ServerProcess; root: string }> {
  const root = tempDir(t, 'rms-answers-');
  if (roomodes !== undefined) writeFileSync(join(root, '.roomodes'), roomodes);
  const s = startServer(t, { args: ['--project-root', root, ...args] });
  await s.initialize('2025-06-18');
  return { s, root };
}

const errorOf = (res: Msg, code: number): { message: string; data: any } => {
  assert.equal(res.error?.code, code, JSON.stringify(res));
  return res.error;
};

test('error messages carry the hint: the modes there are, the allowed pattern, what to do', async (t) => {
  const { s } = await project(t);
  const mode = errorOf(await s.tool(1, 'get_mode_info', { mode_slug: 'coder' }), -32001);
  assert.equal(mode.message, 'Mode not found: "coder". Available modes: code, architect, ask, debug, orchestrator');
  assert.deepEqual(mode.data.available_modes, ['code', 'architect', 'ask', 'debug', 'orchestrator']);

  const lost = errorOf(await s.tool(2, 'get_task_info', { session_id: 'ses_000000000000000000000000' }), -32002);
  assert.match(lost.message, /unless --sessions-dir or ROO_MODES_SESSIONS_DIR is set; create one with create_task$/);
  assert.equal(lost.data.session_id, 'ses_000000000000000000000000');

  const task = (await s.tool(3, 'create_task', { mode_slug: 'architect' })).result.structuredContent;
  const file = errorOf(await s.tool(4, 'validate_tool_use', { session_id: task.session_id, tool_name: 'write_to_file', file_path: 'app.py', enforce: true }), -32006);
  assert.match(file.message, /\\\.md\$/);
  const name = errorOf(await s.tool(5, 'orchestrator_mode_validate', { mode_file: '../x.yaml' }), -32006);
  assert.match(name.message, /Allowed: a plain file name matching \^\[A-Za-z0-9\]/);
  s.assertStdoutPure();
});

test('list_modes names each skipped mode with file, line, slug and reason, and says so in the text', async (t) => {
  const { s, root } = await project(t, [
    'customModes:',
    '  - slug: good',
    '    name: Good',
    '    roleDefinition: Fine.',
    '    groups: [read]',
    '  - slug: bad one',
    '    name: Bad',
    '    roleDefinition: Broken slug.',
    '    groups: [read]',
    '',
  ].join('\n'));
  const res = (await s.tool(1, 'list_modes')).result;
  const problems = res.structuredContent.problems;
  assert.equal(problems.length, 1);
  assert.equal(problems[0].file, join(root, '.roomodes'));
  assert.equal(problems[0].line, 6);
  assert.equal(problems[0].slug, 'bad one');
  assert.match(problems[0].reason, /slug/);
  // The text says what the problem is (a CLI user sees no structuredContent), not "(see problems)".
  assert.match(res.content[0].text, /^Problems in the mode files: 1\n- .*\.roomodes:6:\d+: mode "bad one" was skipped: .*\nFix them in the file named; `roo-modes-server validate` checks the files again\.$/m);
  assert.doesNotMatch(res.content[0].text, /see problems/);
  const tools = (await s.call(2, 'tools/list')).result.tools as { name: string; outputSchema: Record<string, unknown> }[];
  const check = compileSchema(tools.find((x) => x.name === 'list_modes')!.outputSchema);
  assert.deepEqual(check(res.structuredContent, 'structuredContent'), []);
  const clean = (await (await project(t)).s.tool(1, 'list_modes')).result;
  assert.deepEqual(clean.structuredContent.problems, []);
  assert.doesNotMatch(clean.content[0].text, /Skipped/);
  // Past five, the text names the first five and where to see the rest.
  const many = ['customModes:', ...Array.from({ length: 7 }, (_, i) => [`  - slug: bad ${i}`, '    name: Bad', '    roleDefinition: x', '    groups: [read]']).flat(), ''].join('\n');
  const crowded = (await (await project(t, many)).s.tool(1, 'list_modes')).result;
  assert.equal(crowded.structuredContent.problems.length, 7);
  assert.equal((crowded.content[0].text.match(/^- .*was skipped/gm) ?? []).length, 5, crowded.content[0].text);
  assert.match(crowded.content[0].text, /^- and 2 more: run `roo-modes-server validate` in the project to see them all$/m);
});

test('an edit tool without file_path in a mode that may edit only some files is not allowed, and says why', async (t) => {
  const { s } = await project(t);
  const architect = (await s.tool(1, 'create_task', { mode_slug: 'architect' })).result.structuredContent.session_id;
  const res = (await s.tool(2, 'validate_tool_use', { session_id: architect, tool_name: 'apply_diff' })).result.structuredContent;
  assert.equal(res.allowed, false);
  assert.deepEqual(res.restriction, { fileRegex: '\\.md$', description: 'Markdown files only' });
  assert.match(res.reason, /may edit only files matching \\\.md\$.*pass file_path/);
  errorOf(await s.tool(3, 'validate_tool_use', { session_id: architect, tool_name: 'apply_diff', enforce: true }), -32006);
  // Where edit is unrestricted, or a matching file is named, the answer stays yes.
  const code = (await s.tool(4, 'create_task', { mode_slug: 'code' })).result.structuredContent.session_id;
  assert.equal((await s.tool(5, 'validate_tool_use', { session_id: code, tool_name: 'apply_diff' })).result.structuredContent.allowed, true);
  assert.equal((await s.tool(6, 'validate_tool_use', { session_id: architect, tool_name: 'apply_diff', file_path: 'README.md' })).result.structuredContent.allowed, true);
});

test('unknown argument keys are ignored and named in warnings; server.strict refuses them', async (t) => {
  const { s } = await project(t);
  const res = (await s.tool(1, 'create_task', { mode_slug: 'ask', reasoning: 'the model added this', priority: 3 })).result;
  assert.deepEqual(res.warnings, ['ignored the unknown argument "reasoning"', 'ignored the unknown argument "priority"']);
  assert.equal(res.structuredContent.mode_slug, 'ask');
  assert.match(res.content[1].text, /^Note: ignored the unknown argument "reasoning"; ignored the unknown argument "priority"\.$/);
  // The next call without extras has no warnings.
  assert.equal((await s.tool(2, 'list_modes')).result.warnings, undefined);

  const config = join(tempDir(t), 'strict.json');
  writeFileSync(config, JSON.stringify({ server: { strict: true } }));
  const strict = startServer(t, { args: ['--config', config] });
  await strict.initialize();
  const refused = errorOf(await strict.tool(1, 'create_task', { mode_slug: 'ask', reasoning: 'x' }), -32004);
  assert.match(refused.message, /reasoning/);
});

test('at the default level a normal session writes nothing to stderr but the reload it caused; problems and warnings still do', async (t) => {
  const { s, root } = await project(t);
  for (let i = 0; i < 3; i++) await s.tool(`c${i}`, 'create_task', { mode_slug: 'code' });
  await s.tool('b', 'orchestrator_mode_backup', {});
  await s.tool('m', 'orchestrator_mode_create', { mode_name: 'team' });
  await s.tool('v', 'orchestrator_mode_validate', { mode_file: 'team.yaml', repair_if_possible: true });
  await s.tool('s', 'orchestrator_mode_select', { mode_file: 'team.yaml' });
  assert.deepEqual(await s.end(), { code: 0, signal: null });
  // Selecting the mode set changes the modes in force: that reload is the one line (info, as the
  // docs say), and nothing else is written, not even a start-up line.
  assert.match(s.stderr, /^\S+ INFO \[modes\] modes reloaded; changed: [^\n]+\n$/, 'only the reload the session itself caused');
  // Asked for, the start-up line is there (it is tracing detail, not news).
  const told = await project(t, undefined, ['--log-level', 'debug']);
  assert.deepEqual(await told.s.end(), { code: 0, signal: null });
  assert.match(told.s.stderr, /DEBUG \[server\] initialized with protocol-test on protocol 2025-06-18\n/);
  // A problem still shows.
  const broken = await project(t, 'customModes: [\n');
  await broken.s.tool(1, 'list_modes');
  await broken.s.end();
  assert.match(broken.s.stderr, /WARNING .*\.roomodes/);
  assert.ok(root);
});

test('modes --matrix prints the modes × tool groups grid with each file pattern', async (t) => {
  const root = tempDir(t);
  writeFileSync(join(root, '.roomodes'), 'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: Writes docs.\n    groups: [read, [edit, {fileRegex: "\\\\.mdx?$"}]]\n');
  const r = await runCli(['modes', '--matrix', '--project-root', root]);
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.split('\n');
  assert.match(rows[0]!, /^MODE\s+READ\s+EDIT\s+BROWSER\s+COMMAND\s+MCP\s+MODES\s+WEB$/);
  assert.match(r.stdout, /^code\s+✓\s+✓\s+✓\s+✓\s+✓\s+✓\s+·$/m);
  assert.match(r.stdout, /^architect\s+✓\s+\\\.md\$\s+✓\s+·\s+✓\s+✓\s+·$/m);
  assert.match(r.stdout, /^orchestrator\s+·\s+·\s+·\s+·\s+·\s+✓\s+·$/m);
  assert.match(r.stdout, /^docs\s+✓\s+\\\.mdx\?\$\s+·\s+·\s+·\s+·\s+·$/m);
  const both = await runCli(['modes', '--matrix', '--json']);
  assert.equal(both.code, 2);
});

test('no roots warning when the client that offered roots simply goes away', async (t) => {
  const s = startServer(t);
  await s.initialize('2025-06-18', { roots: { listChanged: true } });
  await s.waitFor((m) => m.method === 'roots/list', 10000, 'the roots/list request');
  assert.deepEqual(await s.end(), { code: 0, signal: null });
  assert.doesNotMatch(s.stderr, /could not use the client's roots/);
});

/** The progress notifications sent for `token`, in order. */
const progressOf = (s: ServerProcess, token: string): { progress: number; total?: number; message?: string }[] =>
  s.messages.filter((m) => m.method === 'notifications/progress' && (m.params as { progressToken: unknown }).progressToken === token)
    .map((m) => m.params as { progress: number; total?: number; message?: string });

function rising(steps: { progress: number; total?: number }[], what: string): void {
  assert.ok(steps.length >= 2, `${what}: at least two progress notifications, got ${JSON.stringify(steps)}`);
  for (let i = 1; i < steps.length; i++) assert.ok(steps[i]!.progress > steps[i - 1]!.progress, `${what}: progress rises`);
  assert.equal(steps.at(-1)!.progress, steps.at(-1)!.total, `${what}: the last one is complete`);
}

test('mode-set backup, restore and repair report progress when the request carries a progressToken', async (t) => {
  const { s, root } = await project(t);
  mkdirSync(join(root, '.task_orchestrator', 'roles'), { recursive: true });
  writeFileSync(join(root, '.task_orchestrator', 'roles', 'fix.yaml'), 'customModes:\n  - slug: fix\n    name: Fix\n    roleDefinition: r\n    groups: [read]\n    extra_key: 1\n');
  const call = (id: string, name: string, args: Record<string, unknown>): Promise<Msg> =>
    s.call(id, 'tools/call', { name, arguments: args, _meta: { progressToken: `p-${id}` } });
  const backup = await call('b', 'orchestrator_mode_backup', { keep: 2 });
  rising(progressOf(s, 'p-b'), 'backup');
  await call('r', 'orchestrator_mode_restore', { backup_file: backup.result.structuredContent.backup_file });
  rising(progressOf(s, 'p-r'), 'restore');
  await call('v', 'orchestrator_mode_validate', { mode_file: 'fix.yaml', repair_if_possible: true });
  rising(progressOf(s, 'p-v'), 'validate with repair');
  await s.tool('n', 'orchestrator_mode_backup', {});
  assert.equal(s.messages.filter((m) => m.method === 'notifications/progress').length,
    progressOf(s, 'p-b').length + progressOf(s, 'p-r').length + progressOf(s, 'p-v').length, 'none without a token');
});

test('roo_ipc_start_task with wait_for_start and roo_ipc_get_* report progress', async (t) => {
  const rig = await startRig(t);
  const call = (name: string, args: Record<string, unknown>, token: string): Promise<Msg> =>
    rig.s.call(rig.id(), 'tools/call', { name, arguments: args, _meta: { progressToken: token } });
  await call('roo_ipc_start_task', { text: 'go', wait_for_start: true }, 'start');
  rising(progressOf(rig.s, 'start'), 'start_task');
  await call('roo_ipc_get_modes', {}, 'modes');
  rising(progressOf(rig.s, 'modes'), 'get_modes');
});
