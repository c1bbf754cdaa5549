// Hostile paths (traversal, absolute, symlinks out of the project, control characters, 10,000
// characters) on every tool that takes one: refused with the documented code; the server keeps serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { startServer, type ServerProcess } from '../protocol/harness.js';
import { runCli } from '../protocol/cli-run.js';
import { endAndDrain, scratchDir } from './drive.js';

const FILE_RESTRICTION = -32006;
const VALIDATION = -32004;

/** Lays out a project with symlinks that lead outside it (and one that stays inside, as a control). */
function hostileProject(t: { after(fn: () => void): void }): { root: string; project: string; outside: string; configDir: string } {
  const root = scratchDir(t, 'rms-paths-');
  const project = join(root, 'project');
  const outside = join(root, 'outside');
  const configDir = join(root, 'config');
  for (const d of [project, outside, join(project, 'src'), join(configDir, 'mode-templates')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(outside, 'secret.md'), 'not yours\n');
  writeFileSync(join(project, 'src', 'ok.md'), 'fine\n');
  symlinkSync(outside, join(project, 'out-dir'));
  symlinkSync(join(outside, 'secret.md'), join(project, 'out-file.md'));
  symlinkSync('/etc', join(project, 'etc-link'));
  symlinkSync(join(project, 'src'), join(project, 'in-dir'));
  return { root, project, outside, configDir };
}

/** Paths that must never be allowed, with what makes them hostile. */
function hostilePaths(outside: string): [string, string][] {
  return [
    ['traversal', '../../etc/passwd'],
    ['traversal after a folder', 'src/../../outside/secret.md'],
    ['the home folder, as a shell expands ~', '~/.ssh/id_rsa'],
    ['another user\'s home folder', '~root/.ssh/id_rsa'],
    ['absolute', '/etc/passwd'],
    ['absolute to a sibling folder', join(outside, 'secret.md')],
    ['absolute Windows', 'C:/Windows/System32/drivers/etc/hosts'],
    ['symlinked folder leading outside', 'out-dir/secret.md'],
    ['symlinked file leading outside', 'out-file.md'],
    ['symlink to /etc', 'etc-link/passwd'],
    ['NUL byte', 'src/ok.md\u0000.png'],
    ['newline', 'src/ok.md\nother.md'],
    ['escape sequence', '\u001b[2Jsrc/ok.md'],
    ['DEL', 'src/\u007fok.md'],
    ['4095 characters of traversal', '../'.repeat(1365)],
  ];
}

const LONG_PATH = 'a/'.repeat(5000); // 10,000 characters

async function newSession(s: ServerProcess, id: string, mode: string): Promise<string> {
  const res = await s.tool(id, 'create_task', { mode_slug: mode });
  assert.ok(res.result, `create_task: ${JSON.stringify(res.error)}`);
  return res.result.metadata.session_id as string;
}

async function stillServing(s: ServerProcess, tag: string): Promise<void> {
  assert.deepEqual((await s.call(`ping-${tag}`, 'ping')).result, {}, 'ping still answers');
  const list = await s.tool(`list-${tag}`, 'list_modes', {});
  assert.ok((list.result.metadata.modes as { slug: string }[]).some((m) => m.slug === 'code'), 'list_modes still answers');
}

test('validate_tool_use refuses every hostile file_path: -32006 with enforce, allowed: false with an error without', async (t) => {
  const { project, outside } = hostileProject(t);
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  const session = await newSession(s, 'new', 'code');
  let n = 0;
  for (const [what, path] of hostilePaths(outside)) {
    for (const tool of ['read_file', 'write_to_file']) {
      const soft = await s.tool(`soft-${++n}`, 'validate_tool_use', { session_id: session, tool_name: tool, file_path: path });
      assert.ok(soft.result, `${what} (${tool}) without enforce is a result: ${JSON.stringify(soft.error)}`);
      assert.equal(soft.result.metadata.allowed, false, `${what} (${tool}) is not allowed: ${JSON.stringify(soft.result.metadata)}`);
      assert.equal(soft.result.metadata.error, 'FILE_RESTRICTION_ERROR', `${what} (${tool}) names the file restriction`);
      assert.equal(typeof soft.result.metadata.reason, 'string');
      const hard = await s.tool(`hard-${n}`, 'validate_tool_use', { session_id: session, tool_name: tool, file_path: path, enforce: true });
      assert.equal(hard.error?.code, FILE_RESTRICTION, `${what} (${tool}) with enforce is refused with -32006: ${JSON.stringify(hard.result?.metadata ?? hard.error)}`);
      assert.equal(typeof hard.error?.message, 'string');
    }
  }
  // The controls: paths inside the project (also through a symlink that stays inside) are allowed.
  for (const path of ['src/ok.md', 'in-dir/ok.md', './src/../src/ok.md']) {
    const ok = await s.tool(`ok-${++n}`, 'validate_tool_use', { session_id: session, tool_name: 'read_file', file_path: path, enforce: true });
    assert.equal(ok.result?.metadata.allowed, true, `${path} inside the project is allowed: ${JSON.stringify(ok.error)}`);
  }
  await stillServing(s, 'vtu');
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

test('validate_tool_use refuses a 10,000-character file_path by its schema (maxLength 4096, -32004) with or without enforce', async (t) => {
  const { project } = hostileProject(t);
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  const session = await newSession(s, 'new', 'code');
  for (const enforce of [false, true]) {
    const res = await s.tool(`long-${enforce}`, 'validate_tool_use', { session_id: session, tool_name: 'read_file', file_path: LONG_PATH, enforce });
    assert.equal(res.error?.code, VALIDATION, `refused before any path handling: ${JSON.stringify(res.result?.metadata ?? res.error).slice(0, 300)}`);
    assert.match(JSON.stringify(res.error.data), /file_path/, 'the error points at file_path');
    assert.ok(JSON.stringify(res).length < 20_000, 'the refusal does not echo the whole path back');
  }
  await stillServing(s, 'long');
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

test('the mode-set tools refuse hostile mode_file, template_source and backup_file names with -32006', async (t) => {
  const { project, outside, configDir } = hostileProject(t);
  const env = { ROO_CONFIG_DIR: configDir };
  const s = startServer(t, { args: ['--project-root', project, '--config-dir', configDir], env });
  const tools = ((await s.call('tools', 'tools/list')).result.tools as { name: string }[]).map((x) => x.name);
  if (!tools.includes('orchestrator_mode_select')) {
    t.skip('the orchestrator_mode_* tools are not served yet');
    return;
  }
  // A real set and backup first, so refusals are about the names and not about missing files.
  assert.ok((await s.tool('mk', 'orchestrator_mode_create', { mode_name: 'good' })).result, 'a set can be created');
  const backup = await s.tool('bk', 'orchestrator_mode_backup', {});
  assert.ok(backup.result, `a backup can be made: ${JSON.stringify(backup.error)}`);
  // Entries inside the folders that lead outside them.
  const roles = join(project, '.task_orchestrator', 'roles');
  const backups = join(project, '.task_orchestrator', 'backups');
  writeFileSync(join(outside, 'stolen.yaml'), 'customModes: []\n');
  symlinkSync(join(outside, 'stolen.yaml'), join(roles, 'linked.yaml'));
  symlinkSync(join(outside, 'stolen.yaml'), join(backups, 'mode_backup_linked.yaml'));
  symlinkSync(join(outside, 'stolen.yaml'), join(configDir, 'mode-templates', 'linked.yaml'));
  symlinkSync(join(outside, 'nowhere.yaml'), join(roles, 'dangling.yaml'));

  const names: [string, string][] = [
    ['traversal', '../../etc/passwd'],
    ['traversal with the right extension', '../../outside/stolen.yaml'],
    ['absolute', '/etc/passwd.yaml'],
    ['absolute Windows', 'C:\\x\\set.yaml'],
    ['folder separator', 'roles/good.yaml'],
    ['dot-dot', '..'],
    ['hidden file', '.hidden.yaml'],
    ['NUL byte', 'good.yaml\u0000.txt'],
    ['newline', 'good\n.yaml'],
    ['escape sequence', '\u001b[2Jgood.yaml'],
  ];
  const calls: [string, (name: string) => Record<string, unknown>, string[]][] = [
    ['orchestrator_mode_select', (name) => ({ mode_file: name }), ['linked.yaml', 'dangling.yaml']],
    ['orchestrator_mode_validate', (name) => ({ mode_file: name }), ['linked.yaml', 'dangling.yaml']],
    ['orchestrator_mode_create', (name) => ({ mode_name: `fresh-${Math.random().toString(36).slice(2)}`, template_source: name }), ['linked.yaml']],
    ['orchestrator_mode_restore', (name) => ({ backup_file: name }), ['mode_backup_linked.yaml']],
  ];
  let n = 0;
  for (const [tool, argsFor, linked] of calls) {
    if (!tools.includes(tool)) continue;
    for (const [what, name] of [...names, ...linked.map((l): [string, string] => [`symlink leading outside (${l})`, l])]) {
      const res = await s.tool(`ms-${++n}`, tool, argsFor(name));
      assert.equal(res.error?.code, FILE_RESTRICTION, `${tool} refuses ${what} with -32006: ${JSON.stringify(res.result?.metadata ?? res.error).slice(0, 300)}`);
    }
    const long = await s.tool(`ms-${++n}`, tool, argsFor(`${'a'.repeat(9995)}.yaml`));
    assert.ok(long.error?.code === VALIDATION || long.error?.code === FILE_RESTRICTION, `${tool} refuses a 10,000-character name by schema (-32004) or as a path (-32006): ${JSON.stringify(long.error).slice(0, 200)}`);
  }
  // Nothing leaked out: the outside file is unchanged and no pointer names it.
  const list = await s.tool('list', 'orchestrator_mode_list', { include_invalid: true });
  assert.ok(list.result, `list still works: ${JSON.stringify(list.error)}`);
  assert.notEqual(list.result.metadata.current_mode, 'linked.yaml');
  await stillServing(s, 'ms');
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

/** A project for the link and normalisation attacks of issue 13, with a mode limited to ^docs/. */
function linkedProject(t: { after(fn: () => void): void }): { project: string; outside: string } {
  const root = scratchDir(t, 'rms-links-');
  const project = join(root, 'project');
  const outside = join(root, 'outside');
  for (const d of [join(project, 'docs'), join(project, 'src'), outside]) mkdirSync(d, { recursive: true });
  writeFileSync(join(outside, 'secret.md'), 'not yours\n');
  writeFileSync(join(project, 'src.ts'), 'code\n');
  writeFileSync(join(project, 'src', 'main.ts'), 'code\n');
  writeFileSync(join(project, 'docs', 'a.md'), 'doc\n');
  writeFileSync(join(project, '.roomodes'), [
    'customModes:',
    '  - slug: docs-only',
    '    name: Docs only',
    '    roleDefinition: Edits the docs folder.',
    '    groups: [read, [edit, {fileRegex: "^docs/"}]]',
  ].join('\n'));
  symlinkSync(join(outside, 'nowhere.md'), join(project, 'x.md')); // dangling, outside
  symlinkSync('src.ts', join(project, 'alias.md')); // inside, but not Markdown
  symlinkSync(outside, join(project, 'outdir'));
  return { project, outside };
}

test('links and unnormalised names cannot carry a write past the mode pattern or out of the project', async (t) => {
  const { project } = linkedProject(t);
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  const sessions = { code: await newSession(s, 'c1', 'code'), architect: await newSession(s, 'c2', 'architect'), docs: await newSession(s, 'c3', 'docs-only') };
  const cases: [keyof typeof sessions, string, boolean, string][] = [
    ['code', 'x.md', false, 'a dangling link to a file outside'],
    ['architect', 'x.md', false, 'a dangling link to a Markdown name outside'],
    ['architect', 'alias.md', false, 'a .md link to src.ts in a mode limited to \\.md$'],
    ['docs', 'docs/../src/main.ts', false, '`..` out of docs/'],
    ['docs', 'docs/../.roomodes', false, '`..` to the mode file'],
    // On POSIX (where these tests run) `\` is part of a file name: each of these is one file at
    // the project root, judged by that name; it never climbs and never goes through a link.
    ['docs', 'docs\\..\\.roomodes', false, 'a root file named with backslashes, not in docs/'],
    ['docs', 'src\\..\\docs\\evil.md', false, 'a root file whose name only looks like docs/evil.md'],
    ['docs', 'docs\\new\\b.md', false, 'a root file whose name begins with docs\\'],
    ['code', 'outdir\\secret.md', true, 'a root file, not the link outdir'],
    ['architect', 'src\\..\\docs\\evil.md', true, 'a Markdown file at the root'],
    ['docs', '~/docs/a.md', false, 'the home folder, never a project folder named ~'],
    // Controls: the same modes still allow what they should.
    ['docs', 'docs/a.md', true, 'a file in docs/'],
    ['docs', './~/../docs/b.md', true, 'a project folder named ~ only when spelled ./~'],
    ['docs', './docs//a.md', true, 'an unnormalised spelling of docs/a.md'],
    ['architect', 'docs/new.md', true, 'a new Markdown file'],
  ];
  let n = 0;
  for (const [mode, path, allowed, what] of cases) {
    for (const enforce of [false, true]) {
      const res = await s.tool(`l-${++n}`, 'validate_tool_use', { session_id: sessions[mode], tool_name: 'write_to_file', file_path: path, enforce });
      if (allowed) {
        assert.equal(res.result?.metadata.allowed, true, `${what} (${mode}, ${path}) is allowed: ${JSON.stringify(res.error ?? res.result?.metadata)}`);
      } else if (enforce) {
        assert.equal(res.error?.code, FILE_RESTRICTION, `${what} (${mode}, ${path}) is refused with -32006: ${JSON.stringify(res.result?.metadata ?? res.error)}`);
      } else {
        assert.equal(res.result?.metadata.allowed, false, `${what} (${mode}, ${path}) is not allowed: ${JSON.stringify(res.result?.metadata)}`);
        assert.equal(res.result.metadata.error, 'FILE_RESTRICTION_ERROR');
      }
    }
  }
  await stillServing(s, 'links');
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
  // What the verdicts describe is where the write lands: a write of that text from the project
  // creates one file at the root, and nothing in docs/.
  writeFileSync(resolve(project, 'src\\..\\docs\\evil.md'), 'x');
  assert.ok(readdirSync(project).includes('src\\..\\docs\\evil.md'));
  assert.ok(!existsSync(join(project, 'docs', 'evil.md')));
});

test('the hook judges a file_path the same when it and the cwd reach the project through different links', async (t) => {
  const { project } = linkedProject(t);
  const via = join(dirname(project), 'via');
  symlinkSync(project, via);
  const home = scratchDir(t, 'rms-links-home-');
  const env = { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), CLAUDE_PROJECT_DIR: '' };
  const ask = async (cwd: string, file: string): Promise<string> => {
    const input = JSON.stringify({ session_id: 's', cwd, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: file, content: 'x' } });
    const r = await runCli(['hook', 'claude-code', '--mode', 'docs-only'], { env, input, home });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout === '' ? 'allowed' : String((JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision);
  };
  for (const [cwd, base, what] of [[project, via, 'cwd real, file_path through a link'], [via, project, 'cwd through a link, file_path real'], [via, via, 'both through the link'], [project, project, 'both real']] as const) {
    assert.equal(await ask(cwd, join(base, 'docs', 'new.md')), 'allowed', `${what}: docs/new.md`);
    assert.equal(await ask(cwd, join(base, 'src', 'main.ts')), 'deny', `${what}: src/main.ts`);
    assert.equal(await ask(cwd, join(base, 'outdir', 'secret.md')), 'deny', `${what}: through outdir`);
  }
});

test('a link swapped between two calls is judged by its new target on the second call', async (t) => {
  const { project, outside } = linkedProject(t);
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  const session = await newSession(s, 'c', 'architect');
  const link = join(project, 'swap.md');
  const check = async (id: string): Promise<Record<string, unknown>> =>
    (await s.tool(id, 'validate_tool_use', { session_id: session, tool_name: 'write_to_file', file_path: 'swap.md' })).result.metadata;
  symlinkSync(join(project, 'docs', 'a.md'), link);
  assert.equal((await check('first')).allowed, true, 'a link to docs/a.md is allowed');
  // Swapped at once, with no wait: an answer remembered from the first call would still allow it.
  unlinkSync(link);
  symlinkSync(join(outside, 'secret.md'), link);
  const second = await check('second');
  assert.equal(second.allowed, false, `the new target is outside: ${JSON.stringify(second)}`);
  assert.match(String(second.reason), /outside the project root/);
  unlinkSync(link);
  symlinkSync('src.ts', link);
  const third = await check('third');
  assert.equal(third.allowed, false, `the new target is not Markdown: ${JSON.stringify(third)}`);
  assert.match(String(third.reason), /which leads to src\.ts/);
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});
