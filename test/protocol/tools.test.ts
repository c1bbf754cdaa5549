// Protocol tests of the seven mode tools through the built server: every success path, every error
// code each can return, revision gating of the tool list and results, and both error styles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { startServer, tempDir, type Msg, type ServerProcess } from './harness.js';
import { compileSchema, type SchemaIssue } from '../../src/schema/validate.js';

type TestCtx = Parameters<typeof startServer>[0];
/** A wire value read in assertions; the harness types parsed messages loosely (Msg.result). */
type Loose = Msg['result'];

const SESSION_ID = /^ses_[0-9a-f]{24}$/;
const TASK_ID = /^task_[0-9a-f]{24}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const UNKNOWN_SESSION = 'ses_000000000000000000000000';
const READ_ONLY_TOOLS = ['list_modes', 'get_mode_info', 'get_task_info', 'validate_tool_use'];
const MODE_TOOLS = [...READ_ONLY_TOOLS, 'create_task', 'switch_mode', 'complete_task'];

// The project overrides nothing built in but defines `reviewer`, which the global file also
// defines (the project's wins); the global file adds `translator`. So all three sources show.
const ROOMODES = `customModes:
  - slug: reviewer
    name: 🔍 Reviewer
    roleDefinition: You review changes and write findings down.
    whenToUse: Use to review a change before it is merged.
    groups:
      - read
      - - edit
        - fileRegex: \\.md$
          description: Review notes only
`;
const GLOBAL_MODES = `customModes:
  - slug: translator
    name: 🌐 Translator
    roleDefinition: You translate user-facing text.
    description: Translate strings
    groups: [read, edit]
  - slug: reviewer
    name: Global Reviewer
    roleDefinition: The global reviewer, hidden by the project's.
    groups: [read]
`;

/** A project with a .roomodes and a global config dir with modes.yaml; server args and env for them. */
function fixture(t: TestCtx, config?: unknown): { args: string[]; env: Record<string, string>; project: string } {
  const project = tempDir(t, 'rms-proj-');
  const global = tempDir(t, 'rms-glob-');
  writeFileSync(join(project, '.roomodes'), ROOMODES);
  writeFileSync(join(global, 'modes.yaml'), GLOBAL_MODES);
  const args = ['--project-root', project];
  if (config !== undefined) {
    const file = join(tempDir(t, 'rms-cfg-'), 'config.json');
    writeFileSync(file, JSON.stringify(config));
    args.push('--config', file);
  }
  return { args, env: { ROO_CONFIG_DIR: global }, project };
}

type Rpc = { call(method: string, params?: unknown): Promise<Msg>; tool(name: string, args?: Record<string, unknown>): Promise<Msg> };
type OutputCheck = (value: unknown, root?: string) => SchemaIssue[];

/**
 * Numbered requests on one server. When output schemas are given, every successful tool result's
 * structuredContent is checked against the advertised schema, as SDK clients do.
 */
function rpc(s: ServerProcess, outputs?: Map<string, OutputCheck>): Rpc {
  let n = 0;
  return {
    call: (method, params) => s.call(`q${++n}`, method, params),
    tool: async (name, args = {}) => {
      const res = await s.tool(`q${++n}`, name, args);
      const check = outputs?.get(name);
      if (check && res.result !== undefined && res.result.isError !== true) {
        assert.deepEqual(check(res.result.structuredContent, 'structuredContent'), [], `${name} result matches its outputSchema`);
      }
      return res;
    },
  };
}

/** The advertised output schemas of the session's tool list, compiled. */
async function outputSchemas(s: ServerProcess): Promise<Map<string, OutputCheck>> {
  const listed = await s.call('tools-for-schemas', 'tools/list');
  const out = new Map<string, OutputCheck>();
  for (const tool of listed.result.tools as Loose[]) if (tool.outputSchema) out.set(tool.name, compileSchema(tool.outputSchema));
  return out;
}

async function ready(t: TestCtx, rev = '2025-06-18', config?: unknown): Promise<{ s: ServerProcess; r: Rpc; outputs: Map<string, OutputCheck>; project: string }> {
  const fx = fixture(t, config);
  const s = startServer(t, fx);
  const init = await s.initialize(rev);
  assert.equal(init.result.protocolVersion, rev);
  const outputs = rev >= '2025-06-18' ? await outputSchemas(s) : new Map<string, OutputCheck>();
  return { s, r: rpc(s, outputs), outputs, project: fx.project };
}

/** The tool's result; fails with the error when the call failed. */
function ok(res: Msg): { text: string; metadata: Loose; structured: unknown; raw: Loose } {
  assert.equal(res.error, undefined, `expected a result, got ${JSON.stringify(res.error)}`);
  assert.notEqual(res.result.isError, true, `expected success, got ${JSON.stringify(res.result)}`);
  const content = res.result.content;
  assert.ok(Array.isArray(content) && content.length === 1 && content[0].type === 'text');
  return { text: content[0].text, metadata: res.result.metadata, structured: res.result.structuredContent, raw: res.result };
}

/** The JSON-RPC error, asserting its code. */
function err(res: Msg, code: number): { message: string; data: Loose } {
  assert.equal(res.result, undefined, `expected error ${code}, got ${JSON.stringify(res.result)?.slice(0, 300)}`);
  assert.equal(res.error.code, code, `expected ${code}, got ${JSON.stringify(res.error)}`);
  assert.equal(typeof res.error.message, 'string');
  return res.error;
}

async function createTask(r: Rpc, args: Record<string, unknown>): Promise<{ session: string; task: string }> {
  const m = ok(await r.tool('create_task', args)).metadata;
  return { session: m.session_id, task: m.task_id };
}

for (const rev of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
  const titled = rev >= '2025-06-18';
  const annotated = rev >= '2025-03-26';
  test(`gates tool fields and structuredContent by revision (${rev})`, async (t) => {
    const { s, r } = await ready(t, rev);
    const listed = await r.call('tools/list');
    const tools = listed.result.tools as Loose[];
    for (const name of MODE_TOOLS) {
      const tool = tools.find((x) => x.name === name);
      assert.ok(tool, `${name} is listed`);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(typeof tool.description, 'string');
      assert.equal('title' in tool, titled, `${name}: title only from 2025-06-18`);
      assert.equal('outputSchema' in tool, titled, `${name}: outputSchema only from 2025-06-18`);
      assert.equal('annotations' in tool, annotated, `${name}: annotations only from 2025-03-26`);
      if (annotated) assert.equal(tool.annotations.readOnlyHint, READ_ONLY_TOOLS.includes(name), `${name} readOnlyHint`);
    }
    const res = ok(await r.tool('list_modes'));
    if (titled) assert.deepEqual(res.structured, res.metadata);
    else assert.equal('structuredContent' in res.raw, false, 'no structuredContent before 2025-06-18');
    s.assertStdoutPure();
  });
}

test('list_modes numbers every mode from all three sources and filters by source', async (t) => {
  const { s, r } = await ready(t);
  const all = ok(await r.tool('list_modes'));
  const slugs = all.metadata.modes.map((m: { slug: string }) => m.slug);
  assert.deepEqual(slugs.slice(0, 5), ['code', 'architect', 'ask', 'debug', 'orchestrator']);
  assert.ok(slugs.includes('reviewer') && slugs.includes('translator'));
  assert.equal(slugs.length, 7, 'the global reviewer is hidden by the project one');
  assert.equal(all.metadata.count, 7);
  assert.deepEqual(new Set(all.metadata.modes.map((m: { source: string }) => m.source)), new Set(['builtin', 'global', 'project']));
  const reviewer = all.metadata.modes.find((m: { slug: string }) => m.slug === 'reviewer');
  assert.equal(reviewer.source, 'project');
  assert.equal(reviewer.name, '🔍 Reviewer');
  assert.deepEqual(reviewer.groups, ['read', 'edit (\\.md$)']);
  assert.match(all.text, /^7 modes \(source: all\):/);
  const numbered = all.text.split('\n').filter((l) => /^\d+\. /.test(l));
  assert.deepEqual(numbered.map((l) => Number.parseInt(l, 10)), [1, 2, 3, 4, 5, 6, 7]);
  assert.ok(numbered[0]!.startsWith('1. 💻 Code (code) — builtin'));
  assert.ok(numbered.some((l) => /🔍 Reviewer \(reviewer\) — project/.test(l)));
  assert.ok(numbered.some((l) => /🌐 Translator \(translator\) — global/.test(l)));

  const expect: Record<string, string[]> = {
    builtin: ['code', 'architect', 'ask', 'debug', 'orchestrator'], global: ['translator'], project: ['reviewer'],
  };
  for (const [source, want] of Object.entries(expect)) {
    const res = ok(await r.tool('list_modes', { source }));
    assert.deepEqual(res.metadata.modes.map((m: { slug: string }) => m.slug), want, `source ${source}`);
    assert.equal(res.metadata.count, want.length);
    assert.equal(res.metadata.source, source);
    assert.ok(res.metadata.modes.every((m: { source: string }) => m.source === source));
  }
  const bad = err(await r.tool('list_modes', { source: 'somewhere' }), -32004);
  assert.ok(bad.data.issues.some((i: { path: string }) => i.path === 'arguments.source'));
  s.assertStdoutPure();
});

test('get_mode_info marks each group ✓/✗ with the restriction, adds the prompt on request, and answers an unknown slug with -32001', async (t) => {
  const { s, r } = await ready(t);
  const info = ok(await r.tool('get_mode_info', { mode_slug: 'architect' }));
  assert.deepEqual(info.structured, info.metadata);
  assert.equal(info.metadata.slug, 'architect');
  assert.equal(info.metadata.name, '🏗️ Architect');
  assert.equal(info.metadata.source, 'builtin');
  assert.equal(typeof info.metadata.role_definition, 'string');
  assert.deepEqual(Object.keys(info.metadata.tool_groups).sort(), ['browser', 'command', 'edit', 'mcp', 'modes', 'read', 'web']);
  assert.equal(info.metadata.tool_groups.command.enabled, false);
  assert.equal(info.metadata.tool_groups.edit.enabled, true);
  assert.equal(info.metadata.tool_groups.edit.file_regex, '\\.md$');
  assert.equal('file_regex' in info.metadata.tool_groups.read, false);
  assert.equal('system_prompt' in info.metadata, false);
  assert.match(info.text, /✓ read/);
  assert.match(info.text, /✗ command/);
  assert.match(info.text, /✓ edit — only files matching \\\.md\$/);

  const project = ok(await r.tool('get_mode_info', { mode_slug: 'reviewer', include_system_prompt: true }));
  assert.equal(project.metadata.source, 'project');
  assert.match(project.metadata.file, /\.roomodes$/);
  assert.equal(project.metadata.tool_groups.command.enabled, false);
  assert.equal(typeof project.metadata.system_prompt, 'string');
  assert.ok(project.metadata.system_prompt.includes('You review changes and write findings down.'));
  assert.match(project.text, /System prompt:/);

  const missing = err(await r.tool('get_mode_info', { mode_slug: 'no-such-mode' }), -32001);
  for (const slug of ['code', 'architect', 'ask', 'debug', 'orchestrator', 'reviewer', 'translator']) {
    assert.ok(missing.data.available_modes.includes(slug), `available slugs list ${slug}`);
  }
  const wrongType = err(await r.tool('get_mode_info', { mode_slug: 7 }), -32004);
  assert.ok(wrongType.data.issues.some((i: { path: string }) => i.path === 'arguments.mode_slug'));
  const absent = err(await r.tool('get_mode_info', {}), -32004);
  assert.match(absent.data.message, /mode_slug/);
  s.assertStdoutPure();
});

test('cached answers (list_modes, get_mode_info) are written as ASCII JSON that decodes to the same text and names', async (t) => {
  const { s } = await ready(t);
  for (const [name, args] of [['get_mode_info', { mode_slug: 'architect' }], ['list_modes', {}]] as const) {
    const first = ok(await s.tool(`${name}-1`, name, args));
    const again = ok(await s.tool(`${name}-2`, name, args)); // served from the cache
    assert.deepEqual(again.raw, first.raw);
    for (const id of [`${name}-1`, `${name}-2`]) {
      const line = s.lines.find((l) => l.includes(`"id":"${id}"`));
      assert.ok(line !== undefined, `no answer line for ${id}`);
      assert.match(line, /^[\x00-\x7f]*$/, `${id}: every non-ASCII character is escaped`);
      assert.match(line, /\\ud83c\\udfd7/, `${id}: the architect's emoji is there, escaped`);
    }
  }
  const info = ok(await s.tool('info-3', 'get_mode_info', { mode_slug: 'architect' }));
  assert.equal(info.metadata.name, '🏗️ Architect');
  assert.match(info.text, /^Mode: 🏗️ Architect/);
});

test('create_task starts an active task with its first message and links a subtask both ways', async (t) => {
  const { s, r } = await ready(t);
  const created = ok(await r.tool('create_task', { mode_slug: 'code', initial_message: 'Build the login page' }));
  assert.deepEqual(created.structured, created.metadata);
  assert.match(created.metadata.session_id, SESSION_ID);
  assert.match(created.metadata.task_id, TASK_ID);
  assert.equal(created.metadata.mode_slug, 'code');
  assert.match(created.text, /Session: ses_/);
  const parent = { session: created.metadata.session_id as string, task: created.metadata.task_id as string };

  const info = ok(await r.tool('get_task_info', { session_id: parent.session, include_messages: true }));
  assert.equal(info.metadata.task.state, 'active');
  assert.equal(info.metadata.task.mode_slug, 'code');
  assert.equal(info.metadata.task.messages.length, 1);
  assert.equal(info.metadata.task.messages[0].role, 'user');
  assert.equal(info.metadata.task.messages[0].content, 'Build the login page');
  assert.match(info.metadata.task.messages[0].timestamp, ISO);

  const sub = ok(await r.tool('create_task', { mode_slug: 'debug', parent_session_id: parent.session }));
  assert.equal(sub.metadata.parent_session_id, parent.session);
  assert.equal(sub.metadata.parent_task_id, parent.task);
  const child = ok(await r.tool('get_task_info', { session_id: sub.metadata.session_id, include_hierarchy: true }));
  assert.equal(child.metadata.task.parent_task_id, parent.task);
  assert.deepEqual(child.metadata.task.messages, []);
  assert.equal(child.metadata.hierarchy.parent.session_id, parent.session);
  const up = ok(await r.tool('get_task_info', { session_id: parent.session }));
  assert.deepEqual(up.metadata.task.child_task_ids, [sub.metadata.task_id]);

  const noMode = err(await r.tool('create_task', { mode_slug: 'ghost' }), -32001);
  assert.ok(noMode.data.available_modes.includes('reviewer'));
  err(await r.tool('create_task', { mode_slug: 'code', parent_session_id: UNKNOWN_SESSION }), -32002);
  await r.tool('complete_task', { session_id: sub.metadata.session_id, status: 'completed' });
  err(await r.tool('create_task', { mode_slug: 'ask', parent_session_id: sub.metadata.session_id }), -32004);
  err(await r.tool('create_task', { mode_slug: 'code', initial_message: 3 }), -32004);
  s.assertStdoutPure();
});

test('switch_mode moves an active task, appends to its mode history, and refuses a finished task with -32004', async (t) => {
  const { s, r } = await ready(t);
  const task = await createTask(r, { mode_slug: 'architect' });
  const sw = ok(await r.tool('switch_mode', { session_id: task.session, new_mode_slug: 'code', reason: 'plan agreed' }));
  assert.deepEqual(sw.structured, sw.metadata);
  assert.equal(sw.metadata.old_mode, 'architect');
  assert.equal(sw.metadata.new_mode, 'code');
  assert.equal(sw.metadata.reason, 'plan agreed');
  assert.equal(sw.metadata.tool_groups.command.enabled, true);
  assert.match(sw.text, /from 🏗️ Architect \(architect\) to 💻 Code \(code\)/);
  const sw2 = ok(await r.tool('switch_mode', { session_id: task.session, new_mode_slug: 'reviewer' }));
  assert.equal(sw2.metadata.old_mode, 'code');

  const info = ok(await r.tool('get_task_info', { session_id: task.session }));
  assert.equal(info.metadata.task.mode_slug, 'reviewer');
  const history = info.metadata.task.mode_history;
  assert.equal(history.length, 2);
  assert.deepEqual([history[0].from, history[0].to, history[0].reason], ['architect', 'code', 'plan agreed']);
  assert.deepEqual([history[1].from, history[1].to, 'reason' in history[1]], ['code', 'reviewer', false]);
  assert.match(history[0].at, ISO);
  assert.match(info.text, /architect → code \(plan agreed\)/);

  const unknown = err(await r.tool('switch_mode', { session_id: task.session, new_mode_slug: 'ghost' }), -32001);
  assert.ok(unknown.data.available_modes.includes('code'));
  const after = ok(await r.tool('get_task_info', { session_id: task.session }));
  assert.equal(after.metadata.task.mode_history.length, 2, 'a refused switch records nothing');
  err(await r.tool('switch_mode', { session_id: UNKNOWN_SESSION, new_mode_slug: 'code' }), -32002);
  err(await r.tool('switch_mode', { session_id: task.session }), -32004);
  ok(await r.tool('complete_task', { session_id: task.session, status: 'completed' }));
  const done = err(await r.tool('switch_mode', { session_id: task.session, new_mode_slug: 'code' }), -32004);
  assert.equal(done.data.state, 'completed');
  s.assertStdoutPure();
});

test('get_task_info reports the task, its messages and its hierarchy, with the full task in metadata', async (t) => {
  const { s, r } = await ready(t);
  const parent = await createTask(r, { mode_slug: 'orchestrator', initial_message: 'Ship v2' });
  const a = await createTask(r, { mode_slug: 'code', parent_session_id: parent.session });
  const b = await createTask(r, { mode_slug: 'ask', parent_session_id: parent.session });
  ok(await r.tool('complete_task', { session_id: b.session, status: 'failed' }));

  const plain = ok(await r.tool('get_task_info', { session_id: parent.session }));
  assert.deepEqual(plain.structured, plain.metadata);
  assert.equal(plain.metadata.session_id, parent.session);
  assert.match(plain.metadata.created_at, ISO);
  assert.match(plain.metadata.last_accessed, ISO);
  const task = plain.metadata.task;
  for (const key of ['task_id', 'mode_slug', 'state', 'created_at', 'child_task_ids', 'messages', 'mode_history', 'metadata']) {
    assert.ok(key in task, `the full task has ${key}`);
  }
  assert.equal(task.task_id, parent.task);
  assert.deepEqual(task.child_task_ids, [a.task, b.task]);
  assert.match(plain.text, new RegExp(`^Task ${parent.task}`));
  assert.match(plain.text, /Mode: 🪃 Orchestrator \(orchestrator\)/);
  assert.match(plain.text, /State: active/);
  assert.equal('hierarchy' in plain.metadata, false);
  assert.doesNotMatch(plain.text, /Ship v2/);

  const full = ok(await r.tool('get_task_info', { session_id: parent.session, include_messages: true, include_hierarchy: true }));
  assert.match(full.text, /user: Ship v2/);
  const h = full.metadata.hierarchy;
  assert.equal('parent' in h, false);
  assert.deepEqual(h.children, [
    { session_id: a.session, task_id: a.task, mode_slug: 'code', state: 'active' },
    { session_id: b.session, task_id: b.task, mode_slug: 'ask', state: 'failed' },
  ]);
  assert.match(full.text, /parent: none/);
  assert.match(full.text, /child: .*code, active/);
  assert.match(full.text, /child: .*ask, failed/);

  const kid = ok(await r.tool('get_task_info', { session_id: a.session, include_hierarchy: true }));
  assert.deepEqual(kid.metadata.hierarchy.parent, { session_id: parent.session, task_id: parent.task, mode_slug: 'orchestrator', state: 'active' });
  assert.deepEqual(kid.metadata.hierarchy.children, []);

  err(await r.tool('get_task_info', { session_id: UNKNOWN_SESSION }), -32002);
  err(await r.tool('get_task_info', { session_id: 'not-a-session' }), -32002);
  err(await r.tool('get_task_info', { session_id: parent.session, include_messages: 'yes' }), -32004);
  s.assertStdoutPure();
});

test('validate_tool_use decides by group and file pattern, and with enforce refuses with -32005 or -32006', async (t) => {
  const { s, r } = await ready(t);
  const code = await createTask(r, { mode_slug: 'code' });
  const architect = await createTask(r, { mode_slug: 'architect' });
  const ask = await createTask(r, { mode_slug: 'ask' });
  const check = async (session: string, tool_name: string, file_path?: string): Promise<ReturnType<typeof ok>> =>
    ok(await r.tool('validate_tool_use', { session_id: session, tool_name, ...(file_path === undefined ? {} : { file_path }) }));

  const yes = await check(code.session, 'write_to_file', 'src/app.py');
  assert.deepEqual(yes.structured, yes.metadata);
  assert.equal(yes.metadata.allowed, true);
  assert.equal(yes.metadata.tool_name, 'write_to_file');
  assert.equal(yes.metadata.mode, 'code');
  assert.equal(yes.metadata.group, 'edit');
  assert.equal('error' in yes.metadata, false);
  assert.equal('restriction' in yes.metadata, false);
  assert.match(yes.text, /^✓ allowed/);

  const fileNo = await check(architect.session, 'write_to_file', 'src/app.py');
  assert.equal(fileNo.metadata.allowed, false);
  assert.equal(fileNo.metadata.group, 'edit');
  assert.equal(fileNo.metadata.error, 'FILE_RESTRICTION_ERROR');
  assert.equal(fileNo.metadata.restriction.fileRegex, '\\.md$');
  assert.match(fileNo.text, /^✗ not allowed/);
  assert.match(fileNo.text, /\\\.md\$/);

  const md = await check(architect.session, 'write_to_file', 'docs/plan.md');
  assert.equal(md.metadata.allowed, true);
  assert.equal(md.metadata.restriction.fileRegex, '\\.md$');

  const toolNo = await check(ask.session, 'execute_command');
  assert.equal(toolNo.metadata.allowed, false);
  assert.equal(toolNo.metadata.group, 'command');
  assert.equal(toolNo.metadata.error, 'TOOL_RESTRICTION_ERROR');
  assert.equal((await check(ask.session, 'attempt_completion')).metadata.allowed, true);
  assert.equal((await check(ask.session, 'read_file', 'README.md')).metadata.allowed, true);

  const enforce = (session: string, tool_name: string, file_path?: string): Promise<Msg> =>
    r.tool('validate_tool_use', { session_id: session, tool_name, enforce: true, ...(file_path === undefined ? {} : { file_path }) });
  const e5 = err(await enforce(ask.session, 'execute_command'), -32005);
  assert.equal(e5.data.allowed, false);
  assert.equal(e5.data.mode, 'ask');
  assert.equal(e5.data.tool_name, 'execute_command');
  const e6 = err(await enforce(architect.session, 'write_to_file', 'src/app.py'), -32006);
  assert.equal(e6.data.restriction.fileRegex, '\\.md$');
  assert.equal(ok(await enforce(architect.session, 'write_to_file', 'docs/plan.md')).metadata.allowed, true);

  for (const bad of ['../outside.txt', 'src/../../etc/passwd', '/etc/passwd', 'src/a\u0007b.ts', 'src/a\nb.ts']) {
    const soft = await check(code.session, 'write_to_file', bad);
    assert.equal(soft.metadata.allowed, false, `refuses ${JSON.stringify(bad)}`);
    assert.equal(soft.metadata.error, 'FILE_RESTRICTION_ERROR', `file refusal for ${JSON.stringify(bad)}`);
    err(await enforce(code.session, 'write_to_file', bad), -32006);
  }
  err(await enforce(UNKNOWN_SESSION, 'read_file'), -32002);
  err(await r.tool('validate_tool_use', { session_id: code.session }), -32004);
  s.assertStdoutPure();
});

test('validate_tool_use judges a path that leaves the project and comes back in (../<project>/…) by where it lands', async (t) => {
  const { s, r, project } = await ready(t);
  const architect = await createTask(r, { mode_slug: 'architect' });
  const check = async (file_path: string): Promise<boolean> =>
    ok(await r.tool('validate_tool_use', { session_id: architect.session, tool_name: 'write_to_file', file_path })).metadata.allowed;
  const back = `../${basename(project)}`;
  assert.equal(await check(`${back}/notes.md`), true);
  assert.equal(await check(`${back}/src/app.ts`), false);
  assert.equal(await check(`${back}-other/notes.md`), false);
  s.assertStdoutPure();
});

test('validate_tool_use judges absolute paths by the project root and refuses a symlink that leads out of it', async (t) => {
  const { s, r, project } = await ready(t);
  const outside = tempDir(t, 'rms-outside-');
  mkdirSync(join(project, 'src'));
  symlinkSync(outside, join(project, 'src', 'vendor'));
  const code = await createTask(r, { mode_slug: 'code' });
  const check = async (file_path: string, enforce = false): Promise<Msg> =>
    r.tool('validate_tool_use', { session_id: code.session, tool_name: 'write_to_file', file_path, enforce });
  assert.equal(ok(await check(join(project, 'src', 'app.py'))).metadata.allowed, true, 'an absolute path inside the project');
  assert.equal(ok(await check(join(outside, 'app.py'))).metadata.allowed, false, 'an absolute path outside the project');
  // src/vendor is a symlink to a folder outside the project: writing through it escapes the root.
  const through = ok(await check('src/vendor/app.py'));
  assert.equal(through.metadata.allowed, false, 'a path through a symlink that leaves the project is refused');
  assert.equal(through.metadata.error, 'FILE_RESTRICTION_ERROR');
  err(await check('src/vendor/app.py', true), -32006);
  s.assertStdoutPure();
});

test('complete_task finishes a task once, records its result and lists or cascades to active subtasks', async (t) => {
  const { s, r } = await ready(t);
  const parent = await createTask(r, { mode_slug: 'orchestrator' });
  const c1 = await createTask(r, { mode_slug: 'code', parent_session_id: parent.session });
  const c2 = await createTask(r, { mode_slug: 'debug', parent_session_id: parent.session });
  const done = ok(await r.tool('complete_task', { session_id: parent.session, status: 'completed', result: 'All shipped' }));
  assert.deepEqual(done.structured, done.metadata);
  assert.equal(done.metadata.status, 'completed');
  assert.equal(done.metadata.task_id, parent.task);
  assert.match(done.metadata.completed_at, ISO);
  assert.deepEqual(done.metadata.active_children.map((c: { task_id: string; mode_slug: string; state: string }) => [c.task_id, c.mode_slug, c.state]), [[c1.task, 'code', 'active'], [c2.task, 'debug', 'active']]);
  assert.deepEqual(done.metadata.cancelled_children, []);
  assert.match(done.text, /Subtasks still active \(2\)/);

  const info = ok(await r.tool('get_task_info', { session_id: parent.session }));
  assert.equal(info.metadata.task.state, 'completed');
  assert.equal(info.metadata.task.completed_at, done.metadata.completed_at);
  assert.deepEqual(info.metadata.task.messages.at(-1).role, 'assistant');
  assert.deepEqual(info.metadata.task.messages.at(-1).content, 'All shipped');
  assert.equal(ok(await r.tool('get_task_info', { session_id: c1.session })).metadata.task.state, 'active');

  const again = err(await r.tool('complete_task', { session_id: parent.session, status: 'failed' }), -32004);
  assert.equal(again.data.state, 'completed');
  assert.equal(ok(await r.tool('complete_task', { session_id: c1.session, status: 'failed' })).metadata.status, 'failed');
  err(await r.tool('complete_task', { session_id: c1.session, status: 'cancelled' }), -32004);

  const top = await createTask(r, { mode_slug: 'orchestrator' });
  const mid = await createTask(r, { mode_slug: 'code', parent_session_id: top.session });
  const leaf = await createTask(r, { mode_slug: 'ask', parent_session_id: mid.session });
  const cut = ok(await r.tool('complete_task', { session_id: top.session, status: 'cancelled', cascade: true }));
  assert.equal(cut.metadata.status, 'cancelled');
  assert.deepEqual(cut.metadata.active_children, []);
  assert.deepEqual(new Set(cut.metadata.cancelled_children.map((c: { task_id: string }) => c.task_id)), new Set([mid.task, leaf.task]));
  for (const x of [mid, leaf]) {
    const st = ok(await r.tool('get_task_info', { session_id: x.session })).metadata.task;
    assert.equal(st.state, 'cancelled');
    assert.match(st.completed_at, ISO);
  }
  err(await r.tool('complete_task', { session_id: UNKNOWN_SESSION, status: 'completed' }), -32002);
  const badStatus = err(await r.tool('complete_task', { session_id: top.session, status: 'done' }), -32004);
  assert.ok(badStatus.data.issues.some((i: { path: string }) => i.path === 'arguments.status'));
  s.assertStdoutPure();
});

test('answers schema failures with -32004 and the JSON path, and an unknown tool with -32602', async (t) => {
  const { s, r } = await ready(t);
  const cases: [string, Record<string, unknown>, string][] = [
    ['get_mode_info', { mode_slug: 'code', include_system_prompt: 'yes' }, 'arguments.include_system_prompt'],
    ['create_task', { mode_slug: '' }, 'arguments.mode_slug'],
    ['create_task', { mode_slug: 'code', parent_session_id: 42 }, 'arguments.parent_session_id'],
    ['switch_mode', { session_id: UNKNOWN_SESSION, new_mode_slug: 'code', reason: false }, 'arguments.reason'],
    ['complete_task', { session_id: UNKNOWN_SESSION, status: 'completed', cascade: 1 }, 'arguments.cascade'],
    ['validate_tool_use', { session_id: UNKNOWN_SESSION, tool_name: 'read_file', file_path: '' }, 'arguments.file_path'],
  ];
  for (const [name, args, path] of cases) {
    const e = err(await r.tool(name, args), -32004);
    assert.ok(e.data.issues.some((i: { path: string }) => i.path === path), `${name}: path ${path} in ${JSON.stringify(e.data)}`);
  }
  // Unknown keys are tolerated (and named) unless server.strict: see one-shot-answers.test.ts.
  const extra = await r.tool('list_modes', { sauce: 'x' });
  assert.deepEqual(extra.result.warnings, ['ignored the unknown argument "sauce"']);
  const unknown = err(await r.tool('no_such_tool'), -32602);
  assert.ok(unknown.data.available_tools.includes('list_modes'));
  err(await r.call('tools/call', { name: 'list_modes', arguments: [1] }), -32602);
  err(await r.call('tools/call', { arguments: {} }), -32602);
  s.assertStdoutPure();
});

test('with tool_errors "result" a tool failure is an isError result carrying {code, message, data}', async (t) => {
  const { s, r } = await ready(t, '2025-06-18', { server: { tool_errors: 'result' } });
  const failed = (res: Msg, code: number): Loose => {
    assert.equal(res.error, undefined, `expected a result, got ${JSON.stringify(res.error)}`);
    assert.equal(res.result.isError, true);
    const sc = res.result.structuredContent;
    assert.equal(sc.code, code);
    assert.equal(typeof sc.message, 'string');
    assert.ok('data' in sc);
    assert.match(res.result.content[0].text, new RegExp(`^Error ${code}: `));
    return sc;
  };
  assert.ok(failed(await r.tool('get_mode_info', { mode_slug: 'ghost' }), -32001).data.available_modes.includes('code'));
  failed(await r.tool('get_task_info', { session_id: UNKNOWN_SESSION }), -32002);
  const bad = failed(await r.tool('create_task', { mode_slug: 5 }), -32004);
  assert.ok(bad.data.issues.some((i: { path: string }) => i.path === 'arguments.mode_slug'));
  const task = await createTask(r, { mode_slug: 'ask' });
  failed(await r.tool('validate_tool_use', { session_id: task.session, tool_name: 'execute_command', enforce: true }), -32005);
  ok(await r.tool('complete_task', { session_id: task.session, status: 'completed' }));
  failed(await r.tool('switch_mode', { session_id: task.session, new_mode_slug: 'code' }), -32004);
  err(await r.tool('no_such_tool'), -32602);
  s.assertStdoutPure();
});

test('with tool_errors "result" an isError result has no structuredContent on 2025-03-26', async (t) => {
  const { s, r } = await ready(t, '2025-03-26', { server: { tool_errors: 'result' } });
  const res = await r.tool('get_mode_info', { mode_slug: 'ghost' });
  assert.equal(res.result.isError, true);
  assert.equal('structuredContent' in res.result, false);
  assert.match(res.result.content[0].text, /^Error -32001: /);
  s.assertStdoutPure();
});

test('with tool_errors "result" an isError structuredContent still satisfies the tool\'s outputSchema', async (t) => {
  // SDK clients validate any structuredContent against the listed outputSchema, isError or not
  // (the official TypeScript client throws -32602 "Structured content does not match the tool's
  // output schema"), so the error object must be allowed by the schema the server advertises.
  const { s, r, outputs } = await ready(t, '2025-06-18', { server: { tool_errors: 'result' } });
  const failures: [string, Record<string, unknown>][] = [
    ['list_modes', { source: 'nowhere' }],
    ['get_mode_info', { mode_slug: 'ghost' }],
    ['create_task', { mode_slug: 'ghost' }],
    ['get_task_info', { session_id: UNKNOWN_SESSION }],
  ];
  for (const [name, args] of failures) {
    const res = await r.tool(name, args);
    assert.equal(res.result.isError, true);
    const check = outputs.get(name);
    assert.ok(check, `${name} advertises an outputSchema`);
    assert.deepEqual(check(res.result.structuredContent, 'structuredContent'), [], `${name}: the isError structuredContent matches the advertised outputSchema`);
  }
  s.assertStdoutPure();
});
