// Protocol tests of modes as resources and prompts through the built server: listing with opaque
// cursors, templates, reading each resource kind, error codes, subscriptions, and the prompts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir, MAIN, type Msg, type ServerProcess } from './harness.js';
import { connectStdio } from '../../src/client/index.js';

type TestCtx = Parameters<typeof startServer>[0];
/** A wire value read in assertions; the harness types parsed messages loosely (Msg.result). */
type Loose = Msg['result'];

const BUILTIN = ['code', 'architect', 'ask', 'debug', 'orchestrator'];
const KINDS = [
  { suffix: '', nameSuffix: '', label: '', mimeType: 'application/json' },
  { suffix: '/config', nameSuffix: '_config', label: ' - Configuration', mimeType: 'application/json' },
  { suffix: '/system_prompt', nameSuffix: '_system_prompt', label: ' - System Prompt', mimeType: 'text/plain' },
];
/** A programmatic name: ASCII letters, digits, "_" and "-" only (no emoji, no spaces). */
const PROGRAMMATIC = /^[A-Za-z0-9_-]+$/;

const reviewerModes = (role: string): string => `customModes:
  - slug: reviewer
    name: 🔍 Reviewer
    roleDefinition: ${role}
    whenToUse: Use to review a change.
    groups: [read]
`;

function configFile(t: TestCtx, config: unknown): string {
  const file = join(tempDir(t, 'rms-cfg-'), 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

function rpc(s: ServerProcess): (method: string, params?: unknown) => Promise<Msg> {
  let n = 0;
  return (method, params) => s.call(`q${++n}`, method, params);
}

function errorOf(res: Msg, code: number): { message: string; data: Loose } {
  assert.equal(res.result, undefined, `expected error ${code}, got a result`);
  assert.equal(res.error.code, code, `expected ${code}, got ${JSON.stringify(res.error)}`);
  return res.error;
}

/** Resolves once the server has sent `count` notifications of `method` (counting from `from`). */
function notified(s: ServerProcess, method: string, from: number, what: string, timeoutMs = 8000): Promise<Msg> {
  return s.waitFor((m) => m.method === method && s.messages.indexOf(m) >= from, timeoutMs, what);
}

/**
 * Writes a mode file and waits for `method` sent after the write. The server sets up its file
 * watcher before it answers anything that needs the catalogue, so one write is enough once such
 * a request has been answered.
 */
async function writeAndAwait(s: ServerProcess, file: string, text: string, method: string): Promise<number> {
  const from = s.messages.length;
  writeFileSync(file, text);
  await notified(s, method, from, `${method} after writing ${file}`);
  return from;
}

test('lists three resources per mode in pages of server.page_size, following nextCursor', async (t) => {
  const s = startServer(t, { args: ['--config', configFile(t, { server: { page_size: 4 } })] });
  await s.initialize('2025-06-18');
  const call = rpc(s);
  const all: Loose[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const res = await call('resources/list', cursor === undefined ? {} : { cursor });
    assert.ok(res.result.resources.length <= 4, 'a page holds at most page_size items');
    all.push(...res.result.resources);
    cursor = res.result.nextCursor;
    if (cursor === undefined) break;
    assert.equal(typeof cursor, 'string');
    assert.ok(!cursors.has(cursor), 'cursors never repeat');
    cursors.add(cursor);
  }
  assert.equal(cursor, undefined, 'the last page has no nextCursor');
  assert.equal(cursors.size, 3, '15 resources in pages of 4 make 4 pages');
  assert.equal(all.length, BUILTIN.length * 3);
  assert.deepEqual(new Set(all.map((r) => r.uri)).size, all.length, 'no resource listed twice');
  for (const slug of BUILTIN) {
    for (const k of KINDS) assert.ok(all.some((r) => r.uri === `mode://${slug}${k.suffix}`), `mode://${slug}${k.suffix} is listed`);
  }
  const byUri = (uri: string): Loose => all.find((r) => r.uri === uri)!;
  for (const k of KINDS) {
    const r = byUri(`mode://code${k.suffix}`);
    assert.equal(r.name, `code${k.nameSuffix}`);
    assert.equal(r.title, `💻 Code${k.label}`);
    assert.equal(r.mimeType, k.mimeType);
    assert.equal(typeof r.description, 'string');
    assert.ok(r.description.length > 0);
  }
  assert.equal(byUri('mode://code').description, 'Implement, change and refactor code');
  for (const r of all) assert.match(r.name, PROGRAMMATIC, `${r.uri}: programmatic name`);
  assert.equal(new Set(all.map((r) => r.name)).size, all.length, 'names are unique');
  s.assertStdoutPure();
});

test('before 2025-06-18 resources and templates carry the programmatic name and no title', async (t) => {
  const s = startServer(t);
  await s.initialize('2025-03-26');
  const call = rpc(s);
  const resources = (await call('resources/list')).result.resources as Loose[];
  const templates = (await call('resources/templates/list')).result.resourceTemplates as Loose[];
  for (const x of [...resources, ...templates]) {
    assert.match(x.name, PROGRAMMATIC);
    assert.equal('title' in x, false, `${x.uri ?? x.uriTemplate}: no title before 2025-06-18`);
  }
  s.assertStdoutPure();
});

test('answers a bad cursor on every list method with -32602', async (t) => {
  const s = startServer(t, { args: ['--config', configFile(t, { server: { page_size: 2 } })] });
  await s.initialize();
  const call = rpc(s);
  const first = await call('resources/list');
  const good = first.result.nextCursor as string;
  assert.equal(typeof good, 'string');
  for (const method of ['resources/list', 'resources/templates/list', 'prompts/list', 'tools/list']) {
    for (const cursor of ['not-a-cursor', `${good}x`, 42, '', { offset: 2 }]) {
      errorOf(await call(method, { cursor }), -32602);
    }
  }
  // A cursor from one list is still only a position; the server keeps serving after the refusals.
  assert.ok((await call('resources/list', { cursor: good })).result.resources.length > 0);
  s.assertStdoutPure();
});

test('collects every resource and prompt through the client library across pages', async (t) => {
  const home = tempDir(t, 'rms-home-');
  const protocolErrors: string[] = [];
  const client = await connectStdio({
    command: process.execPath,
    args: [MAIN, '--config', configFile(t, { server: { page_size: 4 } })],
    env: { ...process.env, HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ROO_PROJECT_ROOT: home },
    cwd: home,
    protocolVersion: '2025-06-18',
    onProtocolError: (m) => protocolErrors.push(m),
  });
  t.after(() => client.close({ graceMs: 500, termMs: 500 }));
  const resources = await client.listResources();
  assert.equal(resources.length, 15);
  const templates = await client.listResourceTemplates();
  assert.equal(templates.length, 3);
  const prompts = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name), BUILTIN);
  const read = await client.readResource('mode://ask/config');
  const contents = read.contents as Record<string, unknown>[];
  assert.equal(JSON.parse(contents[0]!.text as string).slug, 'ask');
  const closed = await client.close();
  assert.equal(closed.code, 0);
  assert.deepEqual(protocolErrors, [], 'every stdout line was a JSON-RPC message');
});

test('lists three URI templates', async (t) => {
  const s = startServer(t);
  await s.initialize('2025-06-18');
  const res = await rpc(s)('resources/templates/list');
  const templates = res.result.resourceTemplates as Loose[];
  assert.deepEqual(templates.map((x) => x.uriTemplate), ['mode://{slug}', 'mode://{slug}/config', 'mode://{slug}/system_prompt']);
  assert.deepEqual(templates.map((x) => x.mimeType), ['application/json', 'application/json', 'text/plain']);
  assert.deepEqual(templates.map((x) => x.name), ['mode', 'mode_config', 'mode_system_prompt']);
  assert.deepEqual(templates.map((x) => x.title), ['Mode', 'Mode configuration', 'Mode system prompt']);
  assert.equal(res.result.nextCursor, undefined);
  s.assertStdoutPure();
});

test('reads the full mode, its Roo configuration and its system prompt', async (t) => {
  const s = startServer(t);
  await s.initialize('2025-06-18');
  const call = rpc(s);
  const read = async (uri: string): Promise<{ uri: string; mimeType: string; text: string }> => {
    const res = await call('resources/read', { uri });
    assert.equal(res.result.contents.length, 1);
    return res.result.contents[0];
  };

  const full = await read('mode://architect');
  assert.equal(full.uri, 'mode://architect');
  assert.equal(full.mimeType, 'application/json');
  const mode = JSON.parse(full.text);
  for (const key of ['slug', 'name', 'source', 'description', 'when_to_use', 'role_definition', 'custom_instructions', 'tool_groups']) {
    assert.ok(key in mode, `the full mode has ${key}`);
  }
  assert.equal(mode.slug, 'architect');
  assert.equal(mode.name, '🏗️ Architect');
  assert.equal(mode.source, 'builtin');
  assert.deepEqual(Object.keys(mode.tool_groups).sort(), ['browser', 'command', 'edit', 'mcp', 'modes', 'read', 'web']);
  assert.deepEqual(mode.tool_groups.read, { enabled: true });
  assert.equal(mode.tool_groups.command.enabled, false);
  assert.equal(mode.tool_groups.edit.enabled, true);
  assert.equal(mode.tool_groups.edit.file_regex, '\\.md$');

  const config = await read('mode://architect/config');
  assert.equal(config.mimeType, 'application/json');
  const cfg = JSON.parse(config.text);
  // Exactly a .roomodes entry: Roo's camelCase keys in Roo's order, no nulls, and the source Roo's
  // loader gives a mode that is not from .roomodes.
  assert.deepEqual(Object.keys(cfg), ['slug', 'name', 'roleDefinition', 'whenToUse', 'description', 'customInstructions', 'groups', 'source']);
  assert.equal(cfg.source, 'global');
  assert.equal(cfg.customInstructions, mode.custom_instructions);
  assert.equal(cfg.slug, 'architect');
  assert.equal(cfg.name, '🏗️ Architect');
  assert.equal(cfg.roleDefinition, mode.role_definition);
  assert.equal(cfg.whenToUse, mode.when_to_use);
  assert.equal(cfg.description, mode.description);
  assert.deepEqual(cfg.groups, ['read', ['edit', { fileRegex: '\\.md$', description: 'Markdown files only' }], 'browser', 'mcp', 'modes']);

  const prompt = await read('mode://architect/system_prompt');
  assert.equal(prompt.mimeType, 'text/plain');
  assert.ok(prompt.text.includes(mode.role_definition), 'the system prompt carries the role definition');
  assert.ok(prompt.text.length > mode.role_definition.length);
  s.assertStdoutPure();
});

test('mode://{slug}/config is the mode as .roomodes holds it: camelCase keys, absent ones omitted, and it pastes back into a file', async (t) => {
  const project = tempDir(t, 'rms-proj-');
  writeFileSync(join(project, '.roomodes'), [
    'customModes:',
    '  - slug: docs-writer',
    '    name: Docs Writer',
    '    iconName: codicon-book',
    '    roleDefinition: You write the docs.',
    '    customInstructions: Keep it short.',
    '    groups:',
    '      - read',
    "      - [edit, {fileRegex: '\\.md$', description: Markdown}]",
    '      - mcp',
    '    allowedMcpServers: [github]',
    '    source: project',
    '',
  ].join('\n'));
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize('2025-06-18');
  const call = rpc(s);
  const text = (await call('resources/read', { uri: 'mode://docs-writer/config' })).result.contents[0].text as string;
  const cfg = JSON.parse(text);
  assert.deepEqual(cfg, {
    slug: 'docs-writer', name: 'Docs Writer', iconName: 'codicon-book', roleDefinition: 'You write the docs.',
    customInstructions: 'Keep it short.', groups: ['read', ['edit', { fileRegex: '\\.md$', description: 'Markdown' }], 'mcp'],
    allowedMcpServers: ['github'], source: 'project',
  });
  assert.doesNotMatch(text, /null|when_to_use|role_definition/);
  // Pasted into another project's .roomodes, it loads as the same mode.
  const other = tempDir(t, 'rms-proj-');
  writeFileSync(join(other, '.roomodes'), JSON.stringify({ customModes: [cfg] }, null, 2));
  const s2 = startServer(t, { args: ['--project-root', other] });
  await s2.initialize('2025-06-18');
  const again = JSON.parse((await rpc(s2)('resources/read', { uri: 'mode://docs-writer/config' })).result.contents[0].text);
  assert.deepEqual(again, cfg);
  s.assertStdoutPure();
  s2.assertStdoutPure();
});

test('answers a malformed URI or unknown subresource with -32004 and an unknown mode with -32001', async (t) => {
  const s = startServer(t);
  await s.initialize();
  const call = rpc(s);
  for (const uri of ['http://example.com/code', 'mode://', 'mode://code/bogus', 'mode://code/config/extra', 'mode://co de', 'mode:/code', 'mode://code/']) {
    errorOf(await call('resources/read', { uri }), -32004);
  }
  for (const uri of ['mode://ghost', 'mode://ghost/config', 'mode://ghost/system_prompt']) {
    const e = errorOf(await call('resources/read', { uri }), -32001);
    assert.deepEqual(e.data.available_modes, BUILTIN);
  }
  errorOf(await call('resources/subscribe', { uri: 'file:///etc/passwd' }), -32004);
  s.assertStdoutPure();
});

test('sends resources/updated for a subscribed mode when its file changes, and stops after unsubscribe', async (t) => {
  const project = tempDir(t, 'rms-proj-');
  const roomodes = join(project, '.roomodes');
  writeFileSync(roomodes, reviewerModes('You review changes.'));
  const s = startServer(t, { args: ['--project-root', project] });
  const init = await s.initialize('2025-06-18');
  assert.deepEqual(init.result.capabilities.resources, { subscribe: true, listChanged: true });
  const call = rpc(s);
  assert.equal(JSON.parse((await call('resources/read', { uri: 'mode://reviewer' })).result.contents[0].text).source, 'project');
  for (const uri of ['mode://reviewer', 'mode://reviewer/system_prompt', 'mode://code']) {
    assert.deepEqual((await call('resources/subscribe', { uri })).result, {});
  }

  let from = await writeAndAwait(s, roomodes, reviewerModes('You review changes and write the findings down.'), 'notifications/resources/updated');
  await call('ping'); // every notification of that reload is written before this answer
  const updated = s.messages.slice(from).filter((m) => m.method === 'notifications/resources/updated').map((m) => (m.params as { uri: string }).uri);
  assert.deepEqual(updated.sort(), ['mode://reviewer', 'mode://reviewer/system_prompt']);
  const read = JSON.parse((await call('resources/read', { uri: 'mode://reviewer' })).result.contents[0].text);
  assert.equal(read.role_definition, 'You review changes and write the findings down.');

  // Overriding a built-in mode in the project changes `code`: its subscriber hears of it.
  from = s.messages.length;
  writeFileSync(roomodes, `${reviewerModes('You review changes and write the findings down.')}  - slug: code
    name: 💻 Project Code
    roleDefinition: You write code the project's way.
    groups: [read, edit]
`);
  const codeUpdate = await s.waitFor((m) => m.method === 'notifications/resources/updated' && (m.params as { uri: string }).uri === 'mode://code' && s.messages.indexOf(m) >= from, 8000, 'resources/updated for mode://code');
  assert.ok(codeUpdate);
  assert.equal(JSON.parse((await call('resources/read', { uri: 'mode://code' })).result.contents[0].text).source, 'project');

  assert.deepEqual((await call('resources/unsubscribe', { uri: 'mode://reviewer' })).result, {});
  assert.deepEqual((await call('resources/unsubscribe', { uri: 'mode://reviewer/system_prompt' })).result, {});
  from = s.messages.length;
  writeFileSync(roomodes, reviewerModes('Reviewer, third edition.'));
  await notified(s, 'notifications/resources/list_changed', from, 'list_changed after the third rewrite');
  await call('ping');
  const after = s.messages.slice(from).filter((m) => m.method === 'notifications/resources/updated').map((m) => (m.params as { uri: string }).uri);
  assert.deepEqual(after, ['mode://code'], 'only the remaining subscription hears (code went back to built-in)');
  s.assertStdoutPure();
});

test('sends resources/updated for a subscribed system prompt whose text changed because another mode was added', async (t) => {
  // Every system prompt lists the other modes, so adding a mode changes mode://ask/system_prompt.
  const project = tempDir(t, 'rms-proj-');
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize('2025-06-18');
  const call = rpc(s);
  const before = (await call('resources/read', { uri: 'mode://ask/system_prompt' })).result.contents[0].text as string;
  await call('resources/subscribe', { uri: 'mode://ask/system_prompt' });
  const from = await writeAndAwait(s, join(project, '.roomodes'), reviewerModes('You review changes.'), 'notifications/resources/list_changed');
  await call('ping');
  const now = (await call('resources/read', { uri: 'mode://ask/system_prompt' })).result.contents[0].text as string;
  assert.notEqual(now, before, 'the prompt of ask now names the reviewer mode');
  const updated = s.messages.slice(from).filter((m) => m.method === 'notifications/resources/updated').map((m) => (m.params as { uri: string }).uri);
  assert.deepEqual(updated, ['mode://ask/system_prompt'], 'the subscriber of a resource whose content changed is told');
  s.assertStdoutPure();
});

for (const rev of ['2024-11-05', '2025-06-18']) {
  test(`lists one prompt per mode with an optional task argument (${rev})`, async (t) => {
    const s = startServer(t);
    await s.initialize(rev);
    const res = await rpc(s)('prompts/list');
    const prompts = res.result.prompts as Loose[];
    assert.deepEqual(prompts.map((p) => p.name), BUILTIN);
    const code = prompts[0]!;
    assert.equal('title' in code, rev >= '2025-06-18', 'title only from 2025-06-18');
    if (rev >= '2025-06-18') assert.equal(code.title, '💻 Code');
    assert.match(code.description, /^Use this mode to write, change or refactor code/);
    for (const p of prompts) {
      assert.equal(p.arguments.length, 1);
      assert.equal(p.arguments[0].name, 'task');
      assert.equal(p.arguments[0].required, false);
    }
    s.assertStdoutPure();
  });
}

test('prompts/get returns the system prompt and the task as messages, and -32602 for an unknown prompt', async (t) => {
  const s = startServer(t);
  await s.initialize('2025-06-18');
  const call = rpc(s);
  const systemPrompt = (await call('resources/read', { uri: 'mode://debug/system_prompt' })).result.contents[0].text;
  const bare = await call('prompts/get', { name: 'debug' });
  assert.equal(bare.result.messages.length, 1);
  assert.deepEqual(bare.result.messages[0], { role: 'user', content: { type: 'text', text: systemPrompt } });
  const withTask = await call('prompts/get', { name: 'debug', arguments: { task: 'The build fails on Node 20' } });
  const messages = withTask.result.messages as Loose[];
  assert.equal(messages.length, 2);
  assert.equal(messages[0]!.content.text, systemPrompt);
  assert.ok(messages.every((m) => m.role === 'user' || m.role === 'assistant'));
  assert.deepEqual(messages[1]!.content, { type: 'text', text: 'The build fails on Node 20' });
  const unknown = errorOf(await call('prompts/get', { name: 'ghost' }), -32602);
  assert.deepEqual(unknown.data.available, BUILTIN);
  errorOf(await call('prompts/get', {}), -32602);
  errorOf(await call('prompts/get', { name: 'debug', arguments: { task: 5 } }), -32602);
  s.assertStdoutPure();
});
