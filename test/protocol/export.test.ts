import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { MAIN, REPO, startServer, tempDir, type ServerProcess } from './harness.js';
import { runCli } from './cli-run.js';
import { editDecision, evaluate, type PermissionValue, type Reading } from './opencode-eval.js';
import { parseYaml } from '../../src/yaml/read.js';
import { splitShellWords } from '../../src/export/shell-words.js';
import { shellWord } from '../../src/export/source.js';
import { compileSchema } from '../../src/schema/validate.js';

type TestCtx = { after(fn: () => void | Promise<void>): void };

/** Custom modes whose patterns cover the shapes people write; one has no exact glob. */
const ROOMODES = [
  'customModes:',
  ...[
    ['docs-writer', '^docs/'], ['config-keeper', '\\.(ya?ml|json)$'], ['spec-writer', '^(docs|specs)/.*\\.md$'],
    ['readme-keeper', '/README\\.md$'], ['test-writer', '\\.test\\.[jt]sx?$'],
  ].flatMap(([slug, regex]) => [
    `  - slug: ${slug}`, `    name: ${slug}`, `    roleDefinition: You look after ${slug}.`,
    `    whenToUse: When ${slug} work is needed.`, '    groups:', '      - read', '      - command',
    '      - - edit', `        - fileRegex: ${JSON.stringify(regex)}`,
  ]),
  '',
].join('\n');
const UNTRANSLATABLE = 'customModes:\n  - slug: flat-ts\n    name: Flat TS\n    roleDefinition: Edits top-level TypeScript.\n    groups:\n      - - edit\n        - fileRegex: "^src/[^/]*\\\\.ts$"\n';

function project(t: TestCtx, modes = ROOMODES): { root: string; env: Record<string, string> } {
  const root = tempDir(t, 'rms-export-');
  const home = tempDir(t, 'rms-export-home-');
  writeFileSync(join(root, '.roomodes'), modes);
  mkdirSync(join(root, '.roo', 'rules-docs-writer'), { recursive: true });
  writeFileSync(join(root, '.roo', 'rules-docs-writer', 'style.md'), 'Write short sentences.\n');
  return { root, env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ROO_PROJECT_ROOT: root } };
}

/** The YAML between the opening and closing `---` lines, parsed by our own reader; and the body. */
function frontmatter(text: string): { data: Record<string, unknown>; body: string; raw: string } {
  assert.ok(text.startsWith('---\n'), 'starts with ---');
  const end = text.indexOf('\n---\n', 4);
  assert.ok(end > 0, 'has a closing ---');
  const raw = text.slice(4, end + 1);
  return { data: parseYaml(raw).value as Record<string, unknown>, body: text.slice(end + 5), raw };
}

/** Every file under dir, relative path → bytes. */
function tree(dir: string, base = dir): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    if (e.isDirectory()) for (const [k, v] of tree(full, base)) out.set(k, v);
    else out.set(full.slice(base.length + 1), readFileSync(full, 'utf8'));
  }
  return out;
}

const CLAUDE_FIELDS = new Set(['name', 'description', 'tools', 'disallowedTools', 'model', 'permissionMode', 'hooks', 'mcpServers', 'color', 'skills']);

/** A hook handler as Claude Code's settings and frontmatter hold it. */
interface Handler { type: string; command?: string; args?: string[]; onFailure?: string; url?: string; headers?: Record<string, string>; allowedEnvVars?: string[] }
type HookGroups = { PreToolUse: { matcher: string; hooks: Handler[] }[] };

/** Claude Code's exec form: `command` spawned with `args`, no shell, ${CLAUDE_PROJECT_DIR} filled in. */
function runExecForm(h: Handler, root: string, env: Record<string, string>, file: string): ReturnType<typeof spawnSync> {
  const fill = (s: string): string => s.split('${CLAUDE_PROJECT_DIR}').join(root);
  return spawnSync(fill(h.command!), h.args!.map(fill), {
    input: JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(root, file), content: 'x' }, cwd: root }),
    env: { ...process.env, ...env, CLAUDE_PROJECT_DIR: root }, encoding: 'utf8', shell: false,
  });
}

test('a Claude Code agent parses as Claude Code expects, and its exec-form hook enforces the pattern', async (t) => {
  const { root, env } = project(t);
  // The launcher is this checkout here (the installed package is export-portable.test.ts's job).
  const r = await runCli(['export', '--to', 'claude-code', '--builtins', '--hook-command', JSON.stringify([process.execPath, MAIN])], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /warning: the hook command names .*a path that exists only where it was made/);
  const architect = frontmatter(readFileSync(join(root, '.claude', 'agents', 'architect.md'), 'utf8'));
  for (const key of Object.keys(architect.data)) assert.ok(CLAUDE_FIELDS.has(key), `unknown field ${key}`);
  assert.equal(architect.data.name, 'architect');
  assert.equal(typeof architect.data.description, 'string');
  assert.match(architect.raw, /^# Exported by roo-modes-server from mode architect \(built-in\)/);
  assert.equal(architect.data.disallowedTools, 'Bash, PowerShell');
  assert.match(architect.body, /^\nYou are a software architect/);
  const entry = (architect.data.hooks as HookGroups).PreToolUse[0]!;
  // An exact list for Claude Code (letters and |), naming the edit tools and the legacy MultiEdit only.
  assert.equal(entry.matcher, 'Edit|Write|NotebookEdit|MultiEdit');
  assert.match(entry.matcher, /^[A-Za-z|]+$/);
  assert.deepEqual(entry.hooks, [{ type: 'command', command: process.execPath, args: [MAIN, 'hook', 'claude-code', '--mode', 'architect'], onFailure: 'block' }]);

  const writer = frontmatter(readFileSync(join(root, '.claude', 'agents', 'docs-writer.md'), 'utf8'));
  assert.equal(writer.data.tools, 'Read, Glob, Grep, LSP, Edit, Write, NotebookEdit, Bash, PowerShell, TodoWrite, TaskCreate, TaskGet, TaskList, TaskUpdate');
  assert.doesNotMatch(writer.raw, /\bLS\b|MultiEdit, /);
  assert.match(writer.raw, /from mode docs-writer from \.roomodes line 2/);
  assert.match(writer.body, /## Rules from \.roo\/rules-docs-writer\/style\.md\n\nWrite short sentences\./);
  assert.equal(frontmatter(readFileSync(join(root, '.claude', 'agents', 'code.md'), 'utf8')).data.hooks, undefined);

  // The handler written into the agent, run as Claude Code runs it, refuses an edit outside docs/.
  const handler = (writer.data.hooks as HookGroups).PreToolUse[0]!.hooks[0]!;
  const refused = runExecForm(handler, root, env, 'src/app.ts');
  assert.equal(refused.status, 0, String(refused.stderr));
  assert.match(String(refused.stdout), /"permissionDecision":"deny".*\^docs\//);
  assert.equal(String(runExecForm(handler, root, env, 'docs/intro.md').stdout), '');
});

test('built-in modes are exported only with --builtins or by name', async (t) => {
  const { root, env } = project(t);
  const plain = await runCli(['export', '--to', 'cursor'], { env, cwd: root });
  assert.equal(plain.code, 0, plain.stdout);
  assert.deepEqual(readdirSync(join(root, '.cursor', 'rules')).sort(), ['config-keeper.mdc', 'docs-writer.mdc', 'readme-keeper.mdc', 'spec-writer.mdc', 'test-writer.mdc']);
  assert.match(plain.stdout, /\(5 modes\)/);
  const named = await runCli(['export', '--to', 'cursor', '--mode', 'code'], { env, cwd: root });
  assert.equal(named.code, 0, named.stdout);
  assert.ok(existsSync(join(root, '.cursor', 'rules', 'code.mdc')));
  assert.equal(existsSync(join(root, '.cursor', 'rules', 'architect.mdc')), false);
  const empty = project(t, 'customModes: []\n');
  const none = await runCli(['export', '--to', 'kilo'], { env: empty.env, cwd: empty.root });
  assert.equal(none.code, 0);
  assert.match(none.stdout, /no custom modes to export \(--builtins exports the built-in ones/);
});

test('export is deterministic, updates its own files, refuses others\' files unless --force, and --dry-run writes nothing', async (t) => {
  const { env } = project(t);
  const outA = tempDir(t, 'rms-export-a-');
  const outB = tempDir(t, 'rms-export-b-');
  for (const target of ['claude-code', 'vscode', 'cursor', 'opencode', 'kilo']) {
    for (const out of [outA, outB]) assert.equal((await runCli(['export', '--to', target, '--builtins', '--out', out], { env })).code, 0, target);
  }
  const a = tree(outA);
  assert.deepEqual(a, tree(outB));
  assert.ok(a.has('.github/agents/docs-writer.agent.md') && a.has('.cursor/rules/architect.mdc') && a.has('.kilo/agents/spec-writer.md'));
  for (const [file, text] of a) {
    // The check file Claude Code's and Cursor's hooks run carries its version and hash instead.
    assert.match(text, file.endsWith('/roo-modes-check.cjs') ? /^\/\/ roo-modes-check \S+ sha256:[0-9a-f]{64} Exported by roo-modes-server/ : /^---\n# Exported by roo-modes-server from mode [a-z-]+ /, file);
  }
  assert.ok(a.has('.claude/hooks/roo-modes-check.cjs'));

  // A file an export wrote (its header says so) is brought up to date without --force.
  const file = join(outA, '.opencode', 'agents', 'architect.md');
  writeFileSync(file, a.get('.opencode/agents/architect.md')!.replace('You are a software architect', 'You were a software architect'));
  const updated = await runCli(['export', '--to', 'opencode', '--mode', 'architect', '--out', outA], { env });
  assert.equal(updated.code, 0, updated.stdout);
  assert.match(updated.stdout, /updated: .*architect\.md/);
  assert.equal(readFileSync(file, 'utf8'), a.get('.opencode/agents/architect.md'));

  // One it did not write is refused (exit 1), never "kept" with success.
  writeFileSync(file, 'my own agent\n');
  const refused = await runCli(['export', '--to', 'opencode', '--mode', 'architect', '--out', outA], { env });
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /refused: .*architect\.md exists and was not written by roo-modes-server export \(--force replaces it\)/);
  assert.equal(readFileSync(file, 'utf8'), 'my own agent\n');
  const dry = await runCli(['export', '--to', 'opencode', '--mode', 'architect', '--out', outA, '--force', '--dry-run'], { env });
  assert.match(dry.stdout, /==> .*architect\.md \(would overwrite\) <==\n---\n/);
  assert.equal(readFileSync(file, 'utf8'), 'my own agent\n');
  const forced = await runCli(['export', '--to', 'opencode', '--mode', 'architect', '--out', outA, '--force'], { env });
  assert.equal(forced.code, 0);
  assert.match(forced.stdout, /overwrote: .*architect\.md/);
  assert.equal(readFileSync(file, 'utf8'), a.get('.opencode/agents/architect.md'));
  const again = await runCli(['export', '--to', 'opencode', '--mode', 'architect', '--out', outA], { env });
  assert.match(again.stdout, /unchanged: /);

  const empty = tempDir(t, 'rms-export-dry-');
  await runCli(['export', '--to', 'vscode', '--out', empty, '--dry-run'], { env });
  assert.deepEqual(readdirSync(empty), []);
});

test('--check writes nothing and fails on a stale, hand-edited, missing or left-over file, naming each', async (t) => {
  const { root, env } = project(t);
  const args = ['export', '--to', 'claude-code', '--settings'];
  assert.equal((await runCli(args, { env, cwd: root })).code, 0);
  const fresh = await runCli([...args, '--check'], { env, cwd: root });
  assert.equal(fresh.code, 0, fresh.stdout);
  assert.doesNotMatch(fresh.stdout, /^ {2}(?:stale|missing|differs)/m);

  // One mode's text changes, another is renamed (its old agent is left over, the new one missing).
  writeFileSync(join(root, '.roomodes'), ROOMODES.replace('You look after docs-writer.', 'You keep the docs.').replace(/readme-keeper/g, 'readme-guard'));
  const agents = join(root, '.claude', 'agents');
  writeFileSync(join(agents, 'spec-writer.md'), 'edited by hand\n');
  rmSync(join(agents, 'test-writer.md'));
  const settings = join(root, '.claude', 'settings.json');
  writeFileSync(settings, '{}\n');
  const before = tree(root);
  const stale = await runCli([...args, '--check'], { env, cwd: root });
  assert.equal(stale.code, 1, stale.stdout);
  assert.match(stale.stdout, /stale: .*docs-writer\.md/);
  assert.match(stale.stdout, /differs \(not written by export\): .*spec-writer\.md/);
  assert.match(stale.stdout, /missing: .*test-writer\.md/);
  assert.match(stale.stdout, /stale: .*settings\.json \(one hook for every exported agent, by agent_type: missing or out of date\)/);
  assert.match(stale.stdout, /unchanged: .*config-keeper\.md/);
  assert.match(stale.stdout, /missing: .*readme-guard\.md/);
  assert.match(stale.stdout, /left over: .*readme-keeper\.md \(an earlier export's, for a mode not exported now: delete it, or export that mode/);
  assert.doesNotMatch(stale.stdout, /left over: .*spec-writer/);
  assert.deepEqual(tree(root), before);
  // A plain re-export brings its own files up to date but still fails on the left-over, and leaves it.
  rmSync(join(agents, 'spec-writer.md'));
  const again = await runCli(args, { env, cwd: root });
  assert.equal(again.code, 1, again.stdout);
  assert.doesNotMatch(again.stdout, /refused|failed/);
  assert.match(again.stdout, /updated: .*docs-writer\.md/);
  assert.match(again.stdout, /left over: .*readme-keeper\.md/);
  assert.ok(existsSync(join(agents, 'readme-keeper.md')));
  const bad = await runCli([...args, '--check', '--force'], { env, cwd: root });
  assert.equal(bad.code, 2);
});

test('export refuses bad usage, unknown modes and a fileRegex with no exact glob (or writes ask with --lossy)', async (t) => {
  const { root, env } = project(t, UNTRANSLATABLE);
  for (const [args, why] of [
    [[], /--to is required/], [['--to', 'windsurf'], /--to "windsurf": use one of claude-code, /], [['--to', 'kilo', '--mode', 'nope'], /unknown mode nope/],
    [['--to', 'cursor', '--settings'], /--settings goes with --to claude-code/],
    [['--to', 'cursor', '--settings-local'], /--settings-local goes with --to claude-code/],
    [['--to', 'claude-code', '--settings', '--settings-local'], /pick one/],
    [['--to', 'vscode', '--hook', 'http'], /--hook goes with --to claude-code/],
    [['--to', 'claude-code', '--hook', 'grpc'], /--hook "grpc": use one of vendored, command or http/],
    [['--to', 'cursor', '--hook', 'http'], /Cursor's hooks are commands: --hook http goes with --to claude-code/],
    [['--to', 'claude-code', '--hook', 'vendored', '--hook-command', 'x'], /--hook-command names the command hooks run; it does not go with --hook vendored/],
    [['--to', 'claude-code-plugin'], /--to claude-code-plugin writes a plugin folder: name it with --out DIR/],
    [['--to', 'claude-code-plugin', '--out', 'p', '--name', 'Team_Modes'], /--name "Team_Modes": a plugin name is lowercase letters and digits/],
    [['--to', 'claude-code-plugin', '--out', 'p', '--hook-command', 'x'], /a plugin runs the check file it carries/],
    [['--to', 'claude-code', '--marketplace'], /--marketplace goes with --to claude-code-plugin/],
    [['--to', 'claude-code', '--url', 'http://127.0.0.1:1/x'], /--url goes with --hook http/],
    [['--to', 'claude-code', '--hook', 'http', '--url', 'ftp://x/'], /is not an http:\/\/ or https:\/\/ URL/],
    [['--to', 'claude-code', '--hook', 'http', '--hook-command', 'x'], /--hook-command names the command hooks run; it does not go with --hook http/],
    [['--to', 'claude-code', '--hook-command', '["npx", 3]'], /a JSON array must hold non-empty strings/],
    [['--to', 'claude-code', '--hook-command', '[npx'], /is not a JSON array/],
    [['--to', 'claude-code', '--hook-command', "'npx"], /unterminated single quote/],
    [['--to', 'claude-code', '--check', '--dry-run'], /--check writes nothing/],
    [['--to', 'constructor'], /--to "constructor": use one of /], [['toString', '--to', 'kilo'], /unexpected argument "toString"/],
  ] as [string[], RegExp][]) {
    const r = await runCli(['export', ...args], { env, cwd: root });
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, why);
  }
  const refused = await runCli(['export', '--to', 'kilo', '--mode', 'flat-ts'], { env });
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /refused: mode flat-ts: no exact glob for .*negated character class.*--lossy/);
  assert.equal(existsSync(join(root, '.kilo', 'agents', 'flat-ts.md')), false);
  const lossy = await runCli(['export', '--to', 'kilo', '--mode', 'flat-ts', '--lossy'], { env });
  assert.equal(lossy.code, 0, lossy.stdout);
  assert.match(lossy.stdout, /not carried over \(flat-ts\): edit pattern written as "ask"/);
  const perm = frontmatter(readFileSync(join(root, '.kilo', 'agents', 'flat-ts.md'), 'utf8')).data.permission as Record<string, PermissionValue>;
  assert.equal(evaluate(perm, 'edit', 'src/a.ts', 'newer'), 'ask');
});

test('Cursor rules and VS Code agents parse, say what they cannot enforce, and list VS Code tool sets', async (t) => {
  const { root, env } = project(t);
  assert.equal((await runCli(['export', '--to', 'cursor', '--mode', 'architect'], { env })).code, 0);
  const rule = frontmatter(readFileSync(join(root, '.cursor', 'rules', 'architect.mdc'), 'utf8'));
  assert.deepEqual(Object.keys(rule.data).sort(), ['alwaysApply', 'description']);
  assert.equal(rule.data.alwaysApply, false);
  assert.match(rule.raw, /^description: "/m);
  assert.match(rule.body, /described, not enforced/);
  assert.match(rule.body, /`\\\.md\$`/);
  const vs = await runCli(['export', '--to', 'vscode', '--mode', 'architect', '--mode', 'docs-writer'], { env });
  assert.equal(vs.code, 0);
  const agent = frontmatter(readFileSync(join(root, '.github', 'agents', 'docs-writer.agent.md'), 'utf8'));
  assert.deepEqual(agent.data.tools, ['read', 'search', 'edit', 'execute', 'todo']);
  assert.match(JSON.stringify(agent.data.hooks), /hook claude-code --mode docs-writer --edits-only/);
});

test('--settings merges one by-agent hook into .claude/settings.json, replacing an earlier export\'s per-agent ones, with a backup', async (t) => {
  const { root, env } = project(t);
  const settings = join(root, '.claude', 'settings.json');
  mkdirSync(join(root, '.claude'));
  const mine = { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] };
  const modeHook = { type: 'command', command: 'roo-modes-server', args: ['hook', 'claude-code', '--mode', 'docs-writer'] };
  // What an earlier version wrote: one group per agent, this machine's node and clone in the command,
  // one of them sharing its group with a handler of the user's.
  const older = (slug: string): object => ({ type: 'command', command: `/usr/bin/node /home/someone/roo-modes-server/dist/main.js hook claude-code --mode ${slug} --agent ${slug}` });
  const shared = { matcher: 'Edit|MultiEdit|Write|NotebookEdit', hooks: [older('architect'), { type: 'command', command: 'echo kept' }] };
  writeFileSync(settings, `${JSON.stringify({
    model: 'opus', permissions: { allow: ['Read'] },
    hooks: { PreToolUse: [mine, { matcher: 'Edit|MultiEdit|Write|NotebookEdit', hooks: [older('docs-writer')] }, shared, { matcher: 'Write', hooks: [modeHook] }], Stop: [] },
  }, null, 2)}\n`);
  const first = await runCli(['export', '--to', 'claude-code', '--settings'], { env, cwd: root });
  assert.equal(first.code, 0, first.stdout);
  assert.match(first.stdout, /updated: .*settings\.json \(one hook for every exported agent, by agent_type; previous version kept as .*\/\.roo\/backups\/\d{8}T\d{6}Z-config-claude-settings-json\/settings\.json\)/);
  const merged = JSON.parse(readFileSync(settings, 'utf8'));
  assert.equal(merged.model, 'opus');
  assert.deepEqual(merged.permissions, { allow: ['Read'] });
  assert.deepEqual(merged.hooks.Stop, []);
  assert.deepEqual(merged.hooks.PreToolUse, [
    mine,
    { matcher: 'Edit|MultiEdit|Write|NotebookEdit', hooks: [{ type: 'command', command: 'echo kept' }] },
    { matcher: 'Write', hooks: [modeHook] },
    { matcher: 'Edit|Write|NotebookEdit|MultiEdit', hooks: [{ type: 'command', command: 'node', args: ['${CLAUDE_PROJECT_DIR}/.claude/hooks/roo-modes-check.cjs', 'hook', 'claude-code', '--by-agent'], onFailure: 'block' }] },
  ]);
  // The copy sits in the project's one backups folder, nothing beside settings.json.
  assert.equal(readdirSync(join(root, '.roo', 'backups')).filter((n) => n.endsWith('-config-claude-settings-json')).length, 1);
  assert.ok(!readdirSync(join(root, '.claude')).some((n) => n.includes('.bak-')));
  const second = await runCli(['export', '--to', 'claude-code', '--settings'], { env, cwd: root });
  assert.equal(second.code, 0);
  assert.match(second.stdout, /unchanged: .*settings\.json/);

  // --settings-local writes the file kept out of git instead; the HTTP form replaces the command one.
  const local = await runCli(['export', '--to', 'claude-code', '--settings-local', '--hook', 'http'], { env, cwd: root });
  assert.equal(local.code, 0, local.stdout);
  assert.match(local.stdout, /wrote: .*settings\.local\.json/);
  assert.deepEqual(JSON.parse(readFileSync(join(root, '.claude', 'settings.local.json'), 'utf8')).hooks.PreToolUse, [{
    matcher: 'Edit|Write|NotebookEdit|MultiEdit',
    hooks: [{
      type: 'http', url: 'http://127.0.0.1:3000/hooks/claude-code', headers: { Authorization: 'Bearer ${ROO_MODES_HTTP_TOKEN}' },
      allowedEnvVars: ['ROO_MODES_HTTP_TOKEN'], timeout: 30, onFailure: 'block',
    }],
  }]);
  // Without --hook the next export keeps what this one wrote; --hook vendored goes back.
  const localHooks = (): string[][] => (JSON.parse(readFileSync(join(root, '.claude', 'settings.local.json'), 'utf8')).hooks.PreToolUse as { hooks: Handler[] }[]).map((g) => g.hooks.map((h) => h.type));
  const kept = await runCli(['export', '--to', 'claude-code', '--settings-local'], { env, cwd: root });
  assert.equal(kept.code, 0, kept.stdout);
  assert.deepEqual(localHooks(), [['http']]);
  assert.match(kept.stdout, /the hooks keep what the earlier export wrote \(read from .*\.claude\/agents\/config-keeper\.md\): serve --http at http:\/\/127\.0\.0\.1:3000\/hooks\/claude-code/);
  const back = await runCli(['export', '--to', 'claude-code', '--settings-local', '--hook', 'vendored'], { env, cwd: root });
  assert.equal(back.code, 0, back.stdout);
  assert.deepEqual(localHooks(), [['command']]);
});

test('--hook http writes HTTP handlers that ask serve --http for the mode, failing closed, with the token from the environment', async (t) => {
  const { root, env } = project(t);
  const r = await runCli(['export', '--to', 'claude-code', '--mode', 'docs-writer', '--hook', 'http', '--url', 'http://127.0.0.1:4321/hooks/claude-code'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /enforcement: the hooks ask http:\/\/127\.0\.0\.1:4321\/hooks\/claude-code: keep roo-modes-server serve --http running there/);
  const agent = frontmatter(readFileSync(join(root, '.claude', 'agents', 'docs-writer.md'), 'utf8'));
  assert.deepEqual((agent.data.hooks as HookGroups).PreToolUse, [{
    matcher: 'Edit|Write|NotebookEdit|MultiEdit',
    hooks: [{
      type: 'http', url: 'http://127.0.0.1:4321/hooks/claude-code?mode=docs-writer', headers: { Authorization: 'Bearer ${ROO_MODES_HTTP_TOKEN}' },
      allowedEnvVars: ['ROO_MODES_HTTP_TOKEN'], timeout: 30, onFailure: 'block',
    }],
  }]);
});

test('--hook-command takes words or a JSON array, keeps ${CLAUDE_PROJECT_DIR} for the agent, and VS Code gets it as a shell line', async (t) => {
  const { root, env } = project(t);
  const agentHandler = (): Handler => (frontmatter(readFileSync(join(root, '.claude', 'agents', 'docs-writer.md'), 'utf8')).data.hooks as HookGroups).PreToolUse[0]!.hooks[0]!;
  const words = await runCli(['export', '--to', 'claude-code', '--mode', 'docs-writer', '--hook-command', 'npx --no-install', '--hook-command', 'roo-modes-server'], { env, cwd: root });
  assert.equal(words.code, 0, words.stdout);
  assert.match(words.stdout, /enforcement: the hooks run npx --no-install roo-modes-server; when it cannot start \(not installed there\), "onFailure": "block" blocks the edit/);
  assert.deepEqual(agentHandler(), { type: 'command', command: 'npx', args: ['--no-install', 'roo-modes-server', 'hook', 'claude-code', '--mode', 'docs-writer'], onFailure: 'block' });
  const local = '${CLAUDE_PROJECT_DIR}/node_modules/.bin/roo-modes-server';
  const array = await runCli(['export', '--to', 'claude-code', '--mode', 'docs-writer', '--hook-command', JSON.stringify([local])], { env, cwd: root });
  assert.equal(array.code, 0, array.stdout);
  assert.doesNotMatch(array.stdout, /warning/);
  assert.deepEqual(agentHandler(), { type: 'command', command: local, args: ['hook', 'claude-code', '--mode', 'docs-writer'], onFailure: 'block' });

  const vs = await runCli(['export', '--to', 'vscode', '--mode', 'docs-writer', '--hook-command', local], { env, cwd: root });
  assert.equal(vs.code, 0, vs.stdout);
  const line = (frontmatter(readFileSync(join(root, '.github', 'agents', 'docs-writer.agent.md'), 'utf8')).data.hooks as { PreToolUse: Handler[] }).PreToolUse[0]!.command!;
  assert.equal(line, '"${CLAUDE_PROJECT_DIR}"/node_modules/.bin/roo-modes-server hook claude-code --mode docs-writer --edits-only');
  // A POSIX shell expands the placeholder from the environment and reads the rest back word for word.
  const echoed = spawnSync('sh', ['-c', `printf '%s\\n' ${line}`], { env: { ...process.env, CLAUDE_PROJECT_DIR: '/p q' }, encoding: 'utf8' });
  assert.deepEqual(echoed.stdout.trimEnd().split('\n'), ['/p q/node_modules/.bin/roo-modes-server', 'hook', 'claude-code', '--mode', 'docs-writer', '--edits-only']);
});

test('shellWord quotes what a shell would change and leaves ${NAME} placeholders for it to expand', () => {
  for (const word of ['plain', 'a b', "it's", '$HOME', '`x`', '', 'a"b', '*', 'C:\\tools\\rms.cmd']) {
    assert.deepEqual(splitShellWords(shellWord(word)), [word], word);
  }
  assert.equal(shellWord('${CLAUDE_PROJECT_DIR}/a b'), `"\${CLAUDE_PROJECT_DIR}"'/a b'`);
});

test('no exported file of any target names a folder of the exporting machine', async (t) => {
  const { root, env } = project(t);
  for (const target of ['claude-code', 'vscode', 'cursor', 'opencode', 'kilo']) {
    const r = await runCli(['export', '--to', target, '--builtins', ...(target === 'claude-code' ? ['--settings'] : [])], { env, cwd: root });
    assert.equal(r.code, 0, `${target}: ${r.stdout}`);
  }
  const written = [...tree(root)].filter(([f]) => f !== '.roomodes' && !f.startsWith('.roo/'));
  assert.ok(written.length > 30, String(written.length));
  for (const [file, text] of written) {
    for (const local of [root, env.HOME, MAIN, REPO.replace(/\/$/, ''), process.execPath]) assert.ok(!text.includes(local!), `${file} names ${local}`);
  }
});

/** Paths inside the project (normalised) and two outside it. */
const PATHS = [
  'README.md', 'docs/README.md', 'docs/a.md', 'docs/deep/b.md', 'docs/x.ts', 'docsx/a.md', 'specs/c.md', 'specs/c.txt',
  'src/a.ts', 'src/a.test.ts', 'src/b.test.tsx', 'src/c.test.js', 'a.test.ts', 'config.yaml', 'ci/build.yml',
  'package.json', 'x.json5', 'src/README.md', 'src/readme.md', 'notes.md', '.roomodes', 'docs', '../outside.md', '../docs/a.md',
];

async function validate(s: ServerProcess, id: string, session: string, tool: string, file?: string): Promise<Record<string, unknown>> {
  const res = await s.tool(id, 'validate_tool_use', { session_id: session, tool_name: tool, ...(file === undefined ? {} : { file_path: file }) });
  assert.equal(res.error, undefined, JSON.stringify(res.error));
  return res.result.structuredContent as Record<string, unknown>;
}

test('OpenCode and Kilo permission rules agree with validate_tool_use on a table of paths, under both glob readings', async (t) => {
  const { root, env } = project(t);
  for (const target of ['opencode', 'kilo']) assert.equal((await runCli(['export', '--to', target, '--builtins'], { env })).code, 0, target);
  const s = startServer(t, { args: ['--project-root', root], env });
  await s.initialize('2025-11-25');
  const listed = await s.call('list', 'tools/list');
  const schema = compileSchema(listed.result.tools.find((x: { name: string }) => x.name === 'validate_tool_use').outputSchema);
  let n = 0;
  const slugs = ['architect', 'code', 'ask', 'docs-writer', 'config-keeper', 'spec-writer', 'readme-keeper', 'test-writer'];
  for (const slug of slugs) {
    const task = await s.tool(`t-${slug}`, 'create_task', { mode_slug: slug });
    const session = task.result.structuredContent.session_id as string;
    for (const folder of ['.opencode', '.kilo']) {
      const perm = frontmatter(readFileSync(join(root, folder, 'agents', `${slug}.md`), 'utf8')).data.permission as Record<string, PermissionValue>;
      for (const path of PATHS) {
        const answer = await validate(s, `v${++n}`, session, 'write', path);
        assert.deepEqual(schema(answer), []);
        assert.deepEqual(answer.client_tool, { clients: ['opencode', 'cursor'], group: 'edit' });
        for (const reading of ['older', 'newer'] as Reading[]) {
          const allowed = editDecision(perm, path, reading) === 'allow';
          assert.equal(allowed, answer.allowed, `${folder} ${slug} ${path} (${reading}): OpenCode ${allowed}, validate_tool_use ${String(answer.allowed)}`);
        }
      }
      // Tools whose permission takes patterns are asked about a nested path or a command; the
      // on/off ones (webfetch, todowrite: one action only in OpenCode's schema) and MCP tools with "*".
      const targets: [string, string][] = [
        ['read', 'src/deep/a.ts'], ['glob', 'src/**/*.ts'], ['grep', 'src/deep'], ['list', 'src/deep'], ['bash', 'npm run build ./x'],
        ['task', 'general'], ['webfetch', '*'], ['todowrite', '*'], ['mcp_github_create_issue', '*'],
      ];
      for (const [tool, target] of targets) {
        const answer = await validate(s, `v${++n}`, session, tool);
        for (const reading of ['older', 'newer'] as Reading[]) {
          assert.equal(evaluate(perm, tool, target, reading) === 'allow', answer.allowed, `${folder} ${slug} ${tool} (${reading})`);
        }
      }
    }
  }
  s.assertStdoutPure();
});
