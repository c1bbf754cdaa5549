// Protocol and CLI tests of Roo's export files: export_mode → import_mode round trips byte for
// byte, built-ins export, and hostile imports are refused or confined with nothing written outside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MAIN, startServer, tempDir, type ServerProcess } from './harness.js';

const run = promisify(execFile);
type Ctx = Parameters<typeof startServer>[0];

const SOURCE_MODES = `# Modes of project A
customModes:
  - slug: writer # the one exported
    name: ✍️ Writer
    roleDefinition: |
      You write documentation.
      Keep it short.
    whenToUse: Use for docs.
    groups:
      - read
      - - edit
        - fileRegex: \\.md$
          description: Markdown only
`;

function sourceProject(t: Ctx): string {
  const root = tempDir(t, 'rms-src-');
  writeFileSync(join(root, '.roomodes'), SOURCE_MODES);
  const rules = join(root, '.roo', 'rules-writer');
  mkdirSync(join(rules, 'nested'), { recursive: true });
  writeFileSync(join(rules, 'style.md'), '\n  Prefer plain words.  \n\n');
  writeFileSync(join(rules, 'empty.md'), '   \n');
  writeFileSync(join(rules, 'nested', 'deep.md'), 'Not exported: Roo reads the top level only.');
  const outside = tempDir(t, 'rms-out-');
  writeFileSync(join(outside, 'linked.md'), 'Not exported: a link.');
  symlinkSync(join(outside, 'linked.md'), join(rules, 'linked.md'));
  return root;
}

async function serve(t: Ctx, root: string): Promise<ServerProcess> {
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize('2025-06-18');
  return s;
}

const cli = (args: string[], home: string): Promise<{ stdout: string; stderr: string }> =>
  run(process.execPath, [MAIN, ...args], { env: { ...process.env, HOME: home }, maxBuffer: 64 * 1024 * 1024 });

test('export_mode then import_mode into a fresh project round-trips byte for byte, rules trimmed', async (t) => {
  const a = sourceProject(t);
  const sa = await serve(t, a);
  const exported = (await sa.tool(1, 'export_mode', { mode_slug: 'writer' })).result.structuredContent;
  assert.deepEqual(exported.rules_files, [{ relative_path: 'style.md', bytes: 'Prefer plain words.'.length }]);
  assert.match(exported.yaml, /^customModes:\n  - slug: writer\n/);
  assert.match(exported.yaml, /source: project\n    rulesFiles:\n      - relativePath: style\.md\n        content: Prefer plain words\.\n/);

  const b = tempDir(t, 'rms-dst-');
  const sb = await serve(t, b);
  await sb.call('warm', 'prompts/list');
  const from = sb.messages.length;
  const imported = (await sb.tool(2, 'import_mode', { yaml: exported.yaml })).result.structuredContent;
  assert.equal(imported.mode_file, join(b, '.roomodes'));
  assert.deepEqual(imported.modes[0].written, ['style.md']);
  assert.equal(readFileSync(join(b, '.roo', 'rules-writer', 'style.md'), 'utf8'), 'Prefer plain words.');
  await sb.waitFor((m) => m.method === 'notifications/resources/list_changed' && sb.messages.indexOf(m) >= from, 8000, 'list_changed after the import');
  const again = (await sb.tool(3, 'export_mode', { mode_slug: 'writer' })).result.structuredContent;
  assert.equal(again.yaml, exported.yaml);
  const listed = (await sb.tool(4, 'list_modes', { source: 'project' })).result.structuredContent.modes;
  assert.deepEqual(listed.map((m: { slug: string }) => m.slug), ['writer']);
  sa.assertStdoutPure();
  sb.assertStdoutPure();
});

test('the CLI round-trips too, and a built-in mode exports', async (t) => {
  const a = sourceProject(t);
  const home = tempDir(t, 'rms-home-');
  const file = join(tempDir(t, 'rms-x-'), 'writer.yaml');
  await cli(['export-mode', 'writer', '--out', file, '--project-root', a], home);
  const c = tempDir(t, 'rms-dst-');
  const dry = await cli(['import-mode', file, '--dry-run', '--project-root', c], home);
  assert.match(dry.stdout, /Would import 1 mode/);
  assert.equal(existsSync(join(c, '.roomodes')), false, 'a dry run writes nothing');
  await cli(['import-mode', file, '--project-root', c], home);
  const back = await cli(['export-mode', 'writer', '--project-root', c], home);
  assert.equal(back.stdout, readFileSync(file, 'utf8'));
  const builtin = await cli(['export-mode', 'architect', '--project-root', c], home);
  assert.match(builtin.stdout, /slug: architect\n[\s\S]*fileRegex: "\\\\\.md\$"[\s\S]*source: project\n$/);
});

test('importing over a mode keeps the other modes and comments, replaces its rules folder and backs up what it replaced', async (t) => {
  const root = tempDir(t, 'rms-dst-');
  const existing = `# keep this comment\ncustomModes:\n  - slug: other\n    name: Other\n    roleDefinition: Untouched.\n    groups: [read]\n  - slug: writer\n    name: Old Writer\n    roleDefinition: Old.\n    groups: []\n`;
  writeFileSync(join(root, '.roomodes'), existing);
  mkdirSync(join(root, '.roo', 'rules-writer'), { recursive: true });
  writeFileSync(join(root, '.roo', 'rules-writer', 'old.md'), 'old rule');
  const s = await serve(t, root);
  const yaml = 'customModes:\n  - slug: writer\n    name: New Writer\n    roleDefinition: New.\n    groups: [read]\n    rulesFiles:\n      - relativePath: rules-writer/new.md\n        content: new rule\n';
  const r = (await s.tool(1, 'import_mode', { yaml })).result.structuredContent;
  assert.equal(r.modes[0].action, 'replaced');
  assert.deepEqual(r.modes[0].removed, ['old.md']);
  const text = readFileSync(join(root, '.roomodes'), 'utf8');
  assert.ok(text.startsWith('# keep this comment\ncustomModes:\n  - slug: other\n    name: Other\n    roleDefinition: Untouched.\n    groups: [read]\n'));
  assert.match(text, /name: New Writer/);
  assert.deepEqual(readdirSync(join(root, '.roo', 'rules-writer')), ['new.md']);
  assert.equal(readFileSync(join(r.backup, '.roomodes'), 'utf8'), existing);
  assert.equal(readFileSync(join(r.backup, 'rules-writer', 'old.md'), 'utf8'), 'old rule');
});

test('a marketplace item (content holding one mode) imports', async (t) => {
  const root = tempDir(t, 'rms-dst-');
  const s = await serve(t, root);
  const item = JSON.stringify({ id: 'x', type: 'mode', content: 'slug: market\nname: Market\nroleDefinition: From the marketplace.\ngroups: [read]\n' });
  const r = (await s.tool(1, 'import_mode', { yaml: item })).result.structuredContent;
  assert.equal(r.modes[0].slug, 'market');
  assert.ok((await s.tool(2, 'get_mode_info', { mode_slug: 'market' })).result);
});

test('hostile imports: unsafe paths are skipped, links out, 10,000 files, huge files and bad modes are refused, nothing lands outside', async (t) => {
  const root = tempDir(t, 'rms-dst-');
  const outside = tempDir(t, 'rms-outside-');
  const s = await serve(t, root);
  const mode = (rules: unknown[], slug = 'hostile'): string => JSON.stringify({ customModes: [{ slug, name: 'H', roleDefinition: 'r', groups: ['read'], rulesFiles: rules }] });
  const paths = ['../escape.md', '../../escape2.md', '/etc/abs.md', 'C:\\abs.md', '..\\win.md', 'ok/../../up.md', 'rules-other/kept.md', 'fine.md'];
  const r = (await s.tool(1, 'import_mode', { yaml: mode(paths.map((p) => ({ relativePath: p, content: `from ${p}` }))) })).result.structuredContent;
  assert.deepEqual(r.modes[0].written, ['kept.md', 'fine.md']);
  assert.equal(r.modes[0].skipped.length, 6);
  assert.deepEqual(readdirSync(join(root, '.roo', 'rules-hostile')).sort(), ['fine.md', 'kept.md']);
  assert.deepEqual(readdirSync(join(root, '.roo')), ['rules-hostile']);
  assert.equal(existsSync(join(root, 'escape.md')) || existsSync(join(root, '..', 'escape.md')), false);

  // A rules folder that is a link leading outside: refused before anything is written.
  symlinkSync(outside, join(root, '.roo', 'rules-linked'));
  const linked = await s.tool(2, 'import_mode', { yaml: mode([{ relativePath: 'x.md', content: 'x' }], 'linked') });
  assert.equal(linked.error.code, -32006);
  assert.deepEqual(readdirSync(outside), []);

  const before = readFileSync(join(root, '.roomodes'), 'utf8');
  const many = await s.tool(3, 'import_mode', { yaml: mode(Array.from({ length: 10_000 }, (_, i) => ({ relativePath: `f${i}.md`, content: 'x' })), 'many') });
  assert.equal(many.error.code, -32004);
  assert.match(many.error.message, /more than 500 rules files/);
  const big = await s.tool(4, 'import_mode', { yaml: mode([{ relativePath: 'big.md', content: 'x'.repeat(2 * 1024 * 1024) }], 'big') });
  assert.equal(big.error.code, -32004);
  const invalid = await s.tool(5, 'import_mode', { yaml: JSON.stringify({ customModes: [{ slug: 'good', name: 'G', roleDefinition: 'r', groups: [] }, { slug: 'bad one', name: 'B', roleDefinition: 'r', groups: [] }] }) });
  assert.equal(invalid.error.code, -32004);
  assert.match(invalid.error.message, /customModes\[1\]/);
  assert.equal(readFileSync(join(root, '.roomodes'), 'utf8'), before, 'refused imports change nothing');
  assert.equal(existsSync(join(root, '.roo', 'rules-many')) || existsSync(join(root, '.roo', 'rules-good')), false);

  // A 50 MB file is refused by the CLI before it is read.
  const home = tempDir(t, 'rms-home-');
  const huge = join(tempDir(t, 'rms-x-'), 'huge.yaml');
  writeFileSync(huge, '');
  truncateSync(huge, 50 * 1024 * 1024);
  const res = await cli(['import-mode', huge, '--project-root', root], home).then(() => null, (err: { code: number; stderr: string }) => err);
  assert.ok(res, 'the import failed');
  assert.equal(res.code, 1);
  assert.match(res.stderr, /refused unread/);
  assert.equal(readFileSync(join(root, '.roomodes'), 'utf8'), before);
  s.assertStdoutPure();
});

test('import-mode --global writes the global mode file and ~/.roo, and the mode loads as global', async (t) => {
  const home = tempDir(t, 'rms-home-');
  const project = tempDir(t, 'rms-dst-');
  const file = join(tempDir(t, 'rms-x-'), 'g.yaml');
  writeFileSync(file, 'customModes:\n  - slug: everywhere\n    name: Everywhere\n    roleDefinition: r\n    groups: [read]\n    rulesFiles:\n      - relativePath: g.md\n        content: global rule\n');
  const configDir = join(home, '.roo-code');
  await cli(['import-mode', file, '--global', '--project-root', project, '--config-dir', configDir], home);
  assert.match(readFileSync(join(configDir, 'custom_modes.yaml'), 'utf8'), /slug: everywhere/);
  assert.equal(readFileSync(join(home, '.roo', 'rules-everywhere', 'g.md'), 'utf8'), 'global rule');
  assert.equal(existsSync(join(project, '.roomodes')), false);
  const { stdout } = await cli(['modes', '--json', '--project-root', project, '--config-dir', configDir], home);
  const mode = JSON.parse(stdout).modes.find((m: { slug: string }) => m.slug === 'everywhere');
  assert.equal(mode.source, 'global');
  const back = await cli(['export-mode', 'everywhere', '--project-root', project, '--config-dir', configDir], home);
  assert.match(back.stdout, /content: global rule\n$/);
});

test('import_mode with a session_id obeys the session\'s mode: -32005 without edit, -32006 when the pattern refuses', async (t) => {
  const root = tempDir(t, 'rms-dst-');
  const s = await serve(t, root);
  const yaml = 'customModes:\n  - slug: gated\n    name: G\n    roleDefinition: r\n    groups: [read]\n';
  const session = async (id: string, mode: string): Promise<string> => (await s.tool(id, 'create_task', { mode_slug: mode })).result.structuredContent.session_id;
  assert.equal((await s.tool(1, 'import_mode', { yaml, session_id: await session('a', 'ask') })).error.code, -32005);
  assert.equal((await s.tool(2, 'import_mode', { yaml, session_id: await session('b', 'architect') })).error.code, -32006);
  assert.equal(existsSync(join(root, '.roomodes')), false, 'nothing written');
  assert.equal((await s.tool(3, 'import_mode', { yaml, session_id: await session('c', 'code') })).result.structuredContent.modes[0].slug, 'gated');
});
