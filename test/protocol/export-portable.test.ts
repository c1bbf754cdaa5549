// The "second machine" check: the package is packed and installed into a prefix of its own, an
// exported project is copied elsewhere, and its hook entries are run the way Claude Code runs them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { REPO } from './harness.js';
import { parseYaml } from '../../src/yaml/read.js';

const ROOMODES = [
  'customModes:',
  '  - slug: docs-writer', '    name: Docs writer', '    roleDefinition: You write the documentation.',
  '    groups:', '      - read', '      - - edit', '        - fileRegex: "^docs/"',
  '',
].join('\n');

interface Handler { type: string; command?: string; args?: string[]; onFailure?: string; url?: string }
interface Installed { scratch: string; prefix: string; bin: string; tarball: string }

let box: Installed;

before(() => {
  const scratch = mkdtempSync(join(tmpdir(), 'rms-portable-'));
  const npm = (args: string[], cwd: string): string => {
    const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
    assert.equal(r.status, 0, `npm ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  // dist/ is built before the protocol tests run; the pack takes it as it is.
  const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], REPO)) as { filename: string }[];
  const tarball = join(scratch, packed[0]!.filename);
  const prefix = join(scratch, 'prefix');
  npm(['install', '--global', '--prefix', prefix, '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], scratch);
  box = { scratch, prefix, bin: join(prefix, 'bin'), tarball };
});

after(() => { if (box) rmSync(box.scratch, { recursive: true, force: true }); });

/** PATH for the other machine: node's folder, and the installed bin folder unless left out. */
function pathWith(withBin: boolean): string {
  return [...(withBin ? [box.bin] : []), dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter);
}

function installedCli(args: string[], cwd: string, home: string): SpawnSyncReturns<string> {
  return spawnSync('roo-modes-server', args, {
    cwd, encoding: 'utf8', env: { PATH: pathWith(true), HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code') },
  });
}

/**
 * Runs one handler as Claude Code's exec form does: `command` found on PATH and spawned with
 * `args`, no shell, `${CLAUDE_PROJECT_DIR}` (and for a plugin `${CLAUDE_PLUGIN_ROOT}`) substituted
 * in both and exported.
 */
function runAsClaudeCode(h: Handler, projectDir: string, event: object, path: string, home: string, pluginRoot?: string): SpawnSyncReturns<string> {
  assert.equal(h.type, 'command');
  assert.ok(Array.isArray(h.args), 'exec form: args is set');
  const vars: Record<string, string> = { CLAUDE_PROJECT_DIR: projectDir, ...(pluginRoot === undefined ? {} : { CLAUDE_PLUGIN_ROOT: pluginRoot }) };
  const fill = (s: string): string => Object.entries(vars).reduce((t, [k, v]) => t.split(`\${${k}}`).join(v), s);
  return spawnSync(fill(h.command!), h.args.map(fill), {
    cwd: projectDir, input: JSON.stringify(event), encoding: 'utf8', shell: false,
    env: { PATH: path, HOME: home, ...vars },
  });
}

function frontmatterHooks(file: string): Handler[] {
  const text = readFileSync(file, 'utf8');
  const end = text.indexOf('\n---\n', 4);
  const data = parseYaml(text.slice(4, end + 1)).value as { hooks?: { PreToolUse: { matcher: string; hooks: Handler[] }[] } };
  const groups = data.hooks?.PreToolUse ?? [];
  for (const g of groups) assert.equal(g.matcher, 'Edit|Write|NotebookEdit|MultiEdit');
  return groups.flatMap((g) => g.hooks);
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** An edit of `file` (relative to the project) as Claude Code's PreToolUse event carries it. */
const editEvent = (projectDir: string, file: string): object => ({
  hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(projectDir, file), content: 'x' }, cwd: projectDir,
});

/** A project of its own with the fixture modes, exported by the installed CLI with `args`; then copied elsewhere. */
function exportAndCopy(name: string, args: string[]): { home: string; original: string; copy: string; stdout: string } {
  const home = mkdtempSync(join(box.scratch, 'home-'));
  const original = join(box.scratch, 'exporter', name);
  mkdirSync(original, { recursive: true });
  writeFileSync(join(original, '.roomodes'), ROOMODES);
  const exported = installedCli(['export', ...args], original, home);
  assert.equal(exported.status, 0, exported.stdout + exported.stderr);
  const copy = join(box.scratch, 'elsewhere', name);
  cpSync(original, copy, { recursive: true });
  return { home, original, copy, stdout: exported.stdout };
}

/** The folders of this machine no exported file may name. */
const machineFolders = (original: string, home: string): string[] =>
  [original, box.scratch, box.prefix, home, REPO.replace(/\/$/, ''), dirname(process.execPath), tmpdir()];

test('an exported project copied to another folder checks its edits with the check file it carries: node on PATH and nothing else', () => {
  const home = mkdtempSync(join(box.scratch, 'home-'));
  const original = join(box.scratch, 'exporter', 'app');
  mkdirSync(original, { recursive: true });
  writeFileSync(join(original, '.roomodes'), ROOMODES);
  const exported = installedCli(['export', '--to', 'claude-code', '--settings'], original, home);
  assert.equal(exported.status, 0, exported.stdout + exported.stderr);
  assert.match(exported.stdout, /the hooks run node \$\{CLAUDE_PROJECT_DIR\}\/\.claude\/hooks\/roo-modes-check\.cjs.*Node 20 or later on PATH and nothing else; where node is missing the hook cannot start, and "onFailure": "block" blocks the edit from Claude Code 2\.1\.295; older versions ignore the key and let it through/);

  const copy = join(box.scratch, 'elsewhere', 'app');
  cpSync(original, copy, { recursive: true });
  const written = files(join(copy, '.claude'));
  assert.deepEqual(written.map((f) => f.slice(copy.length + 1)).sort(), ['.claude/agents/docs-writer.md', '.claude/hooks/roo-modes-check.cjs', '.claude/settings.json']);
  // Nothing in them names a folder of the machine that exported them, the check file included.
  for (const file of written) {
    const text = readFileSync(file, 'utf8');
    for (const local of machineFolders(original, home)) assert.ok(!text.includes(local), `${file} names ${local}`);
  }
  // The check is the installed package's own, byte for byte.
  assert.equal(readFileSync(join(copy, '.claude', 'hooks', 'roo-modes-check.cjs'), 'utf8'), readFileSync(join(box.prefix, 'lib', 'node_modules', 'roo-modes-server', 'dist', 'roo-modes-check.cjs'), 'utf8'));

  const [handler, ...more] = frontmatterHooks(join(copy, '.claude', 'agents', 'docs-writer.md'));
  assert.equal(more.length, 0);
  assert.deepEqual(handler, { type: 'command', command: 'node', args: ['${CLAUDE_PROJECT_DIR}/.claude/hooks/roo-modes-check.cjs', 'hook', 'claude-code', '--mode', 'docs-writer'], onFailure: 'block' });
  const settings = JSON.parse(readFileSync(join(copy, '.claude', 'settings.json'), 'utf8')) as { hooks: { PreToolUse: { matcher: string; hooks: Handler[] }[] } };
  assert.deepEqual(settings.hooks.PreToolUse, [{
    matcher: 'Edit|Write|NotebookEdit|MultiEdit',
    hooks: [{ type: 'command', command: 'node', args: ['${CLAUDE_PROJECT_DIR}/.claude/hooks/roo-modes-check.cjs', 'hook', 'claude-code', '--by-agent'], onFailure: 'block' }],
  }]);
  // The package is uninstalled there: PATH holds node and the system's tools only.
  for (const h of [handler!, settings.hooks.PreToolUse[0]!.hooks[0]!]) {
    const event = (file: string): object => ({ ...editEvent(copy, file), agent_type: 'docs-writer' });
    const denied = runAsClaudeCode(h, copy, event('src/app.ts'), pathWith(false), home);
    assert.equal(denied.status, 0, denied.stderr);
    const answer = JSON.parse(denied.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    assert.equal(answer.hookSpecificOutput.permissionDecision, 'deny');
    assert.match(answer.hookSpecificOutput.permissionDecisionReason, /docs-writer.*\^docs\//);
    const allowed = runAsClaudeCode(h, copy, event('docs/intro.md'), pathWith(false), home);
    assert.equal(allowed.status, 0, allowed.stderr);
    assert.equal(allowed.stdout, '');
  }
  // Without node the check cannot start; the entry is what makes Claude Code block then.
  const missing = runAsClaudeCode(handler!, copy, editEvent(copy, 'docs/intro.md'), '/nonexistent', home);
  assert.equal((missing.error as NodeJS.ErrnoException | undefined)?.code, 'ENOENT');
  assert.equal(handler!.onFailure, 'block');
});

test('the plugin folder names no folder of this machine, and a copy of it holds its agents to its own modes in any project, with node alone', () => {
  const home = mkdtempSync(join(box.scratch, 'home-'));
  const original = join(box.scratch, 'exporter', 'team');
  mkdirSync(original, { recursive: true });
  writeFileSync(join(original, '.roomodes'), ROOMODES);
  const out = join(box.scratch, 'exporter', 'plugin');
  const exported = installedCli(['export', '--to', 'claude-code-plugin', '--out', out, '--name', 'team-modes', '--marketplace'], original, home);
  assert.equal(exported.status, 0, exported.stdout + exported.stderr);
  const copy = join(box.scratch, 'elsewhere', 'plugin');
  cpSync(out, copy, { recursive: true });
  const written = files(copy).map((f) => f.slice(copy.length + 1)).sort();
  assert.deepEqual(written, ['.claude-plugin/marketplace.json', '.claude-plugin/plugin.json', 'agents/docs-writer.md', 'hooks/hooks.json', 'hooks/roo-modes-check.cjs', 'roo-modes.yaml']);
  for (const file of files(copy)) {
    const text = readFileSync(file, 'utf8');
    for (const local of [...machineFolders(original, home), out]) assert.ok(!text.includes(local), `${file} names ${local}`);
  }
  // A project of its own where the plugin is used, whose .roomodes lets the same slug edit anything.
  const project = join(box.scratch, 'elsewhere', 'other-project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, '.roomodes'), 'customModes:\n  - slug: docs-writer\n    name: Loose\n    roleDefinition: Anything.\n    groups: [read, edit]\n');
  const hooks = JSON.parse(readFileSync(join(copy, 'hooks', 'hooks.json'), 'utf8')) as { hooks: { PreToolUse: { matcher: string; hooks: Handler[] }[] } };
  const [group] = hooks.hooks.PreToolUse;
  assert.equal(group!.matcher, 'Edit|Write|NotebookEdit|MultiEdit');
  const [handler] = group!.hooks;
  assert.equal(handler!.onFailure, 'block');
  const run = (agent: string, file: string): SpawnSyncReturns<string> => runAsClaudeCode(handler!, project, { ...editEvent(project, file), agent_type: agent }, pathWith(false), home, copy);
  const denied = run('team-modes:docs-writer', 'src/app.ts');
  assert.equal(denied.status, 0, denied.stderr);
  assert.match(denied.stdout, /"permissionDecision":"deny".*docs-writer.*\^docs\//);
  assert.equal(run('team-modes:docs-writer', 'docs/a.md').stdout, '');
  // Another plugin's agent, the project's own agent of that name, the main session: none of its business.
  for (const other of ['other-team:docs-writer', 'docs-writer', 'xteam-modes:docs-writer']) {
    const r = run(other, 'src/app.ts');
    assert.equal(r.status, 0, `${other}: ${r.stderr}`);
    assert.equal(r.stdout, '', other);
  }
  // An agent of this plugin that has no mode in its file cannot be judged: exit 2, which blocks.
  const unknown = run('team-modes:ghost', 'docs/a.md');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /no mode is exported as agent "ghost" in .*roo-modes\.yaml/);
});

test('roo-modes-server on PATH (--hook command): a copy elsewhere denies through the installed package, and cannot start without it', () => {
  const home = mkdtempSync(join(box.scratch, 'home-'));
  const original = join(box.scratch, 'exporter', 'path');
  mkdirSync(original, { recursive: true });
  writeFileSync(join(original, '.roomodes'), ROOMODES);
  const exported = installedCli(['export', '--to', 'claude-code', '--hook', 'command'], original, home);
  assert.equal(exported.status, 0, exported.stdout + exported.stderr);
  const copy = join(box.scratch, 'elsewhere', 'path');
  cpSync(original, copy, { recursive: true });
  assert.deepEqual(files(join(copy, '.claude')).map((f) => f.slice(copy.length + 1)), ['.claude/agents/docs-writer.md']);
  const [handler] = frontmatterHooks(join(copy, '.claude', 'agents', 'docs-writer.md'));
  assert.deepEqual(handler, { type: 'command', command: 'roo-modes-server', args: ['hook', 'claude-code', '--mode', 'docs-writer'], onFailure: 'block' });
  assert.match(runAsClaudeCode(handler!, copy, editEvent(copy, 'src/app.ts'), pathWith(true), home).stdout, /"permissionDecision":"deny"/);
  assert.equal(runAsClaudeCode(handler!, copy, editEvent(copy, 'docs/a.md'), pathWith(true), home).stdout, '');
  const missing = runAsClaudeCode(handler!, copy, editEvent(copy, 'docs/intro.md'), pathWith(false), home);
  assert.equal((missing.error as NodeJS.ErrnoException | undefined)?.code, 'ENOENT');
});

test('a project-local launcher (${CLAUDE_PROJECT_DIR}/node_modules/.bin) runs from the copy with nothing on PATH', () => {
  const home = mkdtempSync(join(box.scratch, 'home-'));
  const original = join(box.scratch, 'exporter', 'local');
  mkdirSync(original, { recursive: true });
  writeFileSync(join(original, '.roomodes'), ROOMODES);
  const launcher = '${CLAUDE_PROJECT_DIR}/node_modules/.bin/roo-modes-server';
  const exported = installedCli(['export', '--to', 'claude-code', '--hook-command', launcher], original, home);
  assert.equal(exported.status, 0, exported.stdout + exported.stderr);

  // The copy has the package as a dev dependency, laid out as npm lays it out.
  const copy = join(box.scratch, 'elsewhere', 'local');
  cpSync(original, copy, { recursive: true });
  cpSync(join(box.prefix, 'lib', 'node_modules', 'roo-modes-server'), join(copy, 'node_modules', 'roo-modes-server'), { recursive: true });
  mkdirSync(join(copy, 'node_modules', '.bin'));
  symlinkSync('../roo-modes-server/dist/main.cjs', join(copy, 'node_modules', '.bin', 'roo-modes-server'));

  const [handler] = frontmatterHooks(join(copy, '.claude', 'agents', 'docs-writer.md'));
  assert.equal(handler!.command, launcher);
  const denied = runAsClaudeCode(handler!, copy, editEvent(copy, 'src/app.ts'), pathWith(false), home);
  assert.equal(denied.status, 0, denied.stderr);
  assert.match(denied.stdout, /"permissionDecision":"deny"/);
  assert.equal(runAsClaudeCode(handler!, copy, editEvent(copy, 'docs/a.md'), pathWith(false), home).stdout, '');
});

test('the installed add-to-mcp-config and generate-config write no path of this machine into shared files', () => {
  const home = mkdtempSync(join(box.scratch, 'home-'));
  const project = join(box.scratch, 'exporter', 'mcp');
  mkdirSync(project, { recursive: true });
  for (const client of ['claude-code', 'vscode', 'cursor', 'roo']) {
    const r = installedCli(['add-to-mcp-config', '--client', client, '--project-root', project, '--sessions-dir', join(project, '.sessions')], project, home);
    assert.equal(r.status, 0, r.stderr);
  }
  const mcp = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
  assert.deepEqual(mcp.mcpServers['roo-modes'], { type: 'stdio', command: 'roo-modes-server', args: ['--sessions-dir', '.sessions'] });
  const vscode = JSON.parse(readFileSync(join(project, '.vscode', 'mcp.json'), 'utf8'));
  assert.deepEqual(vscode.servers['roo-modes'].args, ['--project-root', '${workspaceFolder}', '--sessions-dir', '${workspaceFolder}/.sessions']);
  for (const file of files(project)) {
    const text = readFileSync(file, 'utf8');
    for (const local of [project, box.prefix, home, dirname(process.execPath)]) assert.ok(!text.includes(local), `${file} names ${local}`);
  }
  const config = installedCli(['generate-config'], project, home);
  assert.equal(config.status, 0, config.stderr);
  for (const local of [box.prefix, REPO.replace(/\/$/, ''), home]) assert.ok(!config.stdout.includes(local), `generate-config names ${local}`);
  assert.equal(JSON.parse(config.stdout).$schema, './node_modules/roo-modes-server/schemas/config.schema.json');
});

test('the installed package exports the OpenCode plugin with its decision code, and the copy decides with nothing installed', async () => {
  const { home, original, copy } = exportAndCopy('opencode', ['--to', 'opencode', '--plugin']);
  const written = files(join(copy, '.opencode')).map((f) => f.slice(copy.length + 1)).sort();
  assert.deepEqual(written, ['.opencode/agents/docs-writer.md', '.opencode/plugins/roo-modes.js', '.opencode/roo-modes/decision.cjs']);
  for (const file of written) {
    const text = readFileSync(join(copy, file), 'utf8');
    for (const local of [original, box.scratch, box.prefix, home, REPO.replace(/\/$/, ''), dirname(process.execPath), tmpdir()]) {
      assert.ok(!text.includes(local), `${file} names ${local}`);
    }
  }
  // The plugin as OpenCode runs it, in another process with an empty PATH and no package anywhere.
  const script = `const { RooModesPlugin } = await import(${JSON.stringify(join(copy, '.opencode', 'plugins', 'roo-modes.js'))});
const hooks = await RooModesPlugin({ directory: ${JSON.stringify(copy)} });
await hooks['chat.params']({ sessionID: 's', agent: 'docs-writer' });
const out = [];
for (const f of ['docs/a.md', 'src/app.ts']) {
  try { await hooks['tool.execute.before']({ tool: 'write', sessionID: 's', callID: 'c' }, { args: { filePath: f, content: 'x' } }); out.push('allowed'); }
  catch (err) { out.push(err.message); }
}
console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: copy, encoding: 'utf8', env: { PATH: '', HOME: home } });
  assert.equal(r.status, 0, r.stderr);
  const [inside, outside] = JSON.parse(r.stdout) as string[];
  assert.equal(inside, 'allowed');
  assert.match(outside!, /^Mode docs-writer \(roo-modes-server\): .*\^docs\/.*Got: src\/app\.ts$/);
});
