// Protocol tests of modes authored by agents through the built server: create_mode, update_mode and
// delete_mode keep YAML comments and untouched modes byte for byte, keep JSON as JSON, validate
// first, back up, notify clients, and obey the calling session's mode (-32005/-32006, nothing written).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir, type ServerProcess } from './harness.js';

type Ctx = Parameters<typeof startServer>[0];

const HEAD = `# Team modes: keep these comments!
customModes:
  # Reviews pull requests.
  - slug: reviewer
    name: Reviewer   # shown in the picker
    roleDefinition: >-
      You review changes
      carefully.
    groups: [read]
    notes: kept by update_mode
`;
const TAIL = `
  - slug: tester
    name: Tester
    roleDefinition: You write tests.
    groups:
      - read
      - - edit
        - fileRegex: \\.test\\.ts$
# end of the list
`;

async function project(t: Ctx, text = HEAD + TAIL): Promise<{ root: string; file: string; s: ServerProcess }> {
  const root = tempDir(t, 'rms-author-');
  const file = join(root, '.roomodes');
  writeFileSync(file, text);
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize('2025-06-18');
  await s.call('warm', 'prompts/list');
  return { root, file, s };
}

const slugs = async (s: ServerProcess, id: string): Promise<string[]> =>
  (await s.tool(id, 'list_modes', { source: 'project' })).result.structuredContent.modes.map((m: { slug: string }) => m.slug);

test('create_mode appends to a commented YAML file, keeps every other byte, and is visible at once with list_changed', async (t) => {
  const { file, s } = await project(t);
  const from = s.messages.length;
  const r = await s.tool(1, 'create_mode', {
    slug: 'writer', name: 'Writer', role_definition: 'You write docs.', when_to_use: 'For docs.',
    groups: [{ group: 'read' }, { group: 'edit', file_regex: '\\.md$', description: 'Markdown' }, { group: 'web' }],
    allowed_mcp_servers: ['docs'],
  });
  const out = r.result.structuredContent;
  assert.equal(out.action, 'created');
  assert.equal(out.format, 'yaml');
  assert.equal(out.preserved_format, true);
  const text = readFileSync(file, 'utf8');
  assert.ok(text.startsWith(HEAD + TAIL.replace('# end of the list\n', '')), 'everything before the new mode is unchanged');
  assert.ok(text.endsWith('# end of the list\n'));
  assert.equal(readFileSync(join(out.backup, '.roomodes'), 'utf8'), HEAD + TAIL);
  await s.waitFor((m) => m.method === 'notifications/prompts/list_changed' && s.messages.indexOf(m) >= from, 8000, 'list_changed');
  assert.deepEqual(await slugs(s, 'l'), ['reviewer', 'tester', 'writer']);
  const info = (await s.tool(2, 'get_mode_info', { mode_slug: 'writer' })).result.structuredContent;
  assert.deepEqual(info.tool_groups.edit, { enabled: true, file_regex: '\\.md$', description: 'Markdown' });
  assert.deepEqual(info.allowed_mcp_servers, ['docs']);
  const res = await s.call(3, 'resources/read', { uri: 'mode://writer/system_prompt' });
  assert.match(res.result.contents[0].text, /You write docs\./);
});

test('update_mode rewrites only its mode and keeps keys it does not know; delete_mode removes only its mode', async (t) => {
  const { file, s } = await project(t);
  await s.tool(1, 'update_mode', { slug: 'reviewer', name: 'Senior Reviewer' });
  const updated = readFileSync(file, 'utf8');
  assert.ok(updated.startsWith('# Team modes: keep these comments!\ncustomModes:\n  # Reviews pull requests.\n  - slug: reviewer\n    name: Senior Reviewer\n'));
  assert.match(updated, /notes: kept by update_mode/);
  assert.ok(updated.endsWith(TAIL), 'the other mode is byte for byte the same');
  const info = (await s.tool(2, 'get_mode_info', { mode_slug: 'reviewer' })).result.structuredContent;
  assert.equal(info.name, 'Senior Reviewer');
  assert.equal(info.role_definition, 'You review changes carefully.');

  await s.tool(3, 'delete_mode', { slug: 'reviewer' });
  const after = readFileSync(file, 'utf8');
  assert.equal(after, `# Team modes: keep these comments!\ncustomModes:\n${TAIL.slice(1)}`);
  assert.deepEqual(await slugs(s, 'l'), ['tester']);
});

test('JSON stays JSON, with its indentation', async (t) => {
  const json = `${JSON.stringify({ customModes: [{ slug: 'one', name: 'One', roleDefinition: 'r', groups: ['read'] }] }, null, 4)}\n`;
  const { file, s } = await project(t, json);
  const r = (await s.tool(1, 'create_mode', { slug: 'two', name: 'Two', role_definition: 'r2', groups: [] })).result.structuredContent;
  assert.equal(r.format, 'json');
  const text = readFileSync(file, 'utf8');
  const parsed = JSON.parse(text);
  assert.deepEqual(parsed.customModes.map((m: { slug: string }) => m.slug), ['one', 'two']);
  assert.equal(text, `${JSON.stringify(parsed, null, 4)}\n`);
});

test('refusals change nothing: existing slug, unknown mode, built-in delete, invalid mode', async (t) => {
  const { file, s } = await project(t);
  const exists = await s.tool(1, 'create_mode', { slug: 'tester', name: 'T', role_definition: 'r', groups: [] });
  assert.equal(exists.error.code, -32004);
  const missing = await s.tool(2, 'update_mode', { slug: 'nobody', name: 'N' });
  assert.equal(missing.error.code, -32001);
  const builtin = await s.tool(3, 'delete_mode', { slug: 'code' });
  assert.equal(builtin.error.code, -32004);
  assert.match(builtin.error.message, /built-in/);
  const badRegex = await s.tool(4, 'create_mode', { slug: 'bad', name: 'B', role_definition: 'r', groups: [{ group: 'edit', file_regex: '(' }] });
  assert.equal(badRegex.error.code, -32004);
  const badUpdate = await s.tool(5, 'update_mode', { slug: 'tester', name: '' });
  assert.equal(badUpdate.error.code, -32004);
  assert.equal(readFileSync(file, 'utf8'), HEAD + TAIL);
  // Overriding a built-in is a create in a scope.
  const override = await s.tool(6, 'create_mode', { slug: 'code', name: 'Our Code', role_definition: 'r', groups: [{ group: 'read' }] });
  assert.equal(override.result.structuredContent.action, 'created');
  assert.equal((await s.tool(7, 'get_mode_info', { mode_slug: 'code' })).result.structuredContent.source, 'project');
  // A global definition under a project one is written, and the answer says which one is in force.
  const hidden = await s.tool(8, 'create_mode', { slug: 'tester', name: 'Global Tester', role_definition: 'r', groups: [], scope: 'global' });
  assert.equal(hidden.result.structuredContent.scope, 'global');
  assert.match(hidden.result.content[0].text, /in force comes from .*\.roomodes, which takes precedence/);
});

test('delete_mode removes the rules folder only when asked, after backing it up', async (t) => {
  const { root, s } = await project(t);
  for (const slug of ['reviewer', 'tester']) {
    mkdirSync(join(root, '.roo', `rules-${slug}`), { recursive: true });
    writeFileSync(join(root, '.roo', `rules-${slug}`, 'r.md'), `rule of ${slug}`);
  }
  await s.tool(1, 'delete_mode', { slug: 'reviewer' });
  assert.ok(existsSync(join(root, '.roo', 'rules-reviewer', 'r.md')), 'kept by default');
  const r = (await s.tool(2, 'delete_mode', { slug: 'tester', remove_rules: true })).result.structuredContent;
  assert.equal(existsSync(join(root, '.roo', 'rules-tester')), false);
  assert.equal(readFileSync(join(r.backup, 'rules-tester', 'r.md'), 'utf8'), 'rule of tester');
});

test('with a session_id the task\'s mode must be able to write the mode file: -32005, -32006, or the change', async (t) => {
  const { file, s } = await project(t);
  const session = async (id: string, mode: string): Promise<string> =>
    (await s.tool(id, 'create_task', { mode_slug: mode })).result.structuredContent.session_id;
  const args = { slug: 'agent-made', name: 'Agent Made', role_definition: 'r', groups: [{ group: 'read' }] };
  const ask = await s.tool(1, 'create_mode', { ...args, session_id: await session('a', 'ask') });
  assert.equal(ask.error.code, -32005);
  const architect = await s.tool(2, 'create_mode', { ...args, session_id: await session('b', 'architect') });
  assert.equal(architect.error.code, -32006);
  assert.match(architect.error.message, /\\\.md\$/);
  const del = await s.tool(3, 'delete_mode', { slug: 'tester', session_id: await session('c', 'ask') });
  assert.equal(del.error.code, -32005);
  assert.equal(readFileSync(file, 'utf8'), HEAD + TAIL, 'nothing written');
  const code = await s.tool(4, 'create_mode', { ...args, session_id: await session('d', 'code') });
  assert.equal(code.result.structuredContent.action, 'created');
  const unknown = await s.tool(5, 'update_mode', { slug: 'tester', name: 'X', session_id: 'ses_000000000000000000000000' });
  assert.equal(unknown.error.code, -32002);
  s.assertStdoutPure();
});

test('two server processes authoring the same file at once lose no change (the cross-process lock)', async (t) => {
  const { root, file, s } = await project(t);
  const other = startServer(t, { args: ['--project-root', root] });
  await other.initialize('2025-06-18');
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < 8; i++) {
    for (const [name, srv] of [['a', s], ['b', other]] as const) {
      srv.request(`${name}${i}`, 'tools/call', { name: 'create_mode', arguments: { slug: `p-${name}-${i}`, name: 'P', role_definition: 'r', groups: [] } });
      calls.push(srv.response(`${name}${i}`, 20000));
    }
  }
  const answers = await Promise.all(calls) as { error?: unknown }[];
  assert.deepEqual(answers.filter((a) => a.error), []);
  const text = readFileSync(file, 'utf8');
  for (let i = 0; i < 8; i++) for (const name of ['a', 'b']) assert.match(text, new RegExp(`slug: p-${name}-${i}\\n`));
  assert.ok(text.startsWith(HEAD), 'the untouched modes and comments survive concurrent writers');
});
