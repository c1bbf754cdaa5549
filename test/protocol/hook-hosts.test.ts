import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, tempDir } from './harness.js';
import { hookProject } from './hook-rig.js';
import { runCli, type CliRun } from './cli-run.js';

/** The hook rig's project plus a mode whose slug has capitals (Roo allows them) and no edit group. */
const project = (t: { after(fn: () => void): void }): { root: string; env: Record<string, string> } => hookProject(t, [
  '  - slug: Reviewer',
  '    name: Reviewer',
  '    roleDefinition: You review.',
  '    groups: [read]',
]);

/** A PreToolUse event as Claude Code and VS Code send it. */
const claude = (root: string, tool_name: string, tool_input: Record<string, unknown>, extra: Record<string, unknown> = {}): string => JSON.stringify({
  session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name, tool_input, ...extra,
});

/** Cursor's preToolUse event: its own event name, workspace roots, no cwd at the top. */
const cursor = (root: string, tool_name: string, tool_input: Record<string, unknown>): string => JSON.stringify({
  conversation_id: 'c1', generation_id: 'g1', hook_event_name: 'preToolUse', workspace_roots: [root],
  cursor_version: '2.0.77', tool_name, tool_input,
});

const claudeReason = (r: CliRun): string => {
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };
  assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
  return out.hookSpecificOutput.permissionDecisionReason;
};

const noObjection = (r: CliRun, what: string): void => {
  assert.equal(r.code, 0, `${what}: ${r.stderr}`);
  assert.equal(r.stdout, '', what);
  assert.equal(r.stderr, '', what);
};

test('VS Code’s own tool names and camelCase paths are judged; tools it does not know pass untouched', async (t) => {
  const { root, env } = project(t);
  const hook = (input: string): Promise<CliRun> => runCli(['hook', 'claude-code', '--mode', 'architect'], { env, input });
  // VS Code runs settings hooks on every tool: a terminal in a mode without `command` is refused...
  assert.match(claudeReason(await hook(claude(root, 'run_in_terminal', { command: 'ls', explanation: 'list', isBackground: false }))), /"command" group/);
  // ...an edit is judged on its camelCase filePath, each replacement's file included...
  assert.match(claudeReason(await hook(claude(root, 'create_file', { filePath: join(root, 'src', 'a.ts'), content: '' }))), /Got: src\/a\.ts/);
  assert.match(claudeReason(await hook(claude(root, 'replace_string_in_file', { filePath: join(root, 'src', 'b.ts'), oldString: 'a', newString: 'b' }))), /src\/b\.ts/);
  assert.match(claudeReason(await hook(claude(root, 'multi_replace_string_in_file', {
    replacements: [{ filePath: join(root, 'plan.md'), oldString: 'a', newString: 'b' }, { filePath: join(root, 'src', 'c.ts'), oldString: 'a', newString: 'b' }],
  }))), /src\/c\.ts/);
  noObjection(await hook(claude(root, 'create_file', { filePath: join(root, 'plan.md'), content: '' })), 'create_file on Markdown');
  noObjection(await hook(claude(root, 'read_file', { filePath: join(root, 'src', 'a.ts'), startLine: 1, endLine: 9 })), 'read_file');
  // ...and a tool no agent is known to call gets no decision, whatever its input looks like.
  for (const input of [
    claude(root, 'vscode_somethingNew', { path: { not: 'a string' }, files: 'nope' }),
    claude(root, 'copilot_frobnicate', {}),
    claude(root, 'mcp__github', {}),
  ]) noObjection(await hook(input), input);
});

test('Cursor’s preToolUse: hook cursor answers in Cursor’s words; claude-code answers a Cursor-shaped event so Cursor blocks too', async (t) => {
  const { root, env } = project(t);
  const run = (target: string, input: string, slug = 'architect'): Promise<CliRun> => runCli(['hook', target, '--mode', slug], { env, input });
  const write = cursor(root, 'Write', { file_path: join(root, 'src', 'a.ts'), content: 'x' });

  const denied = await run('cursor', write);
  assert.equal(denied.code, 2, 'a refusal exits 2, which Cursor treats as a block even without reading stdout');
  const out = JSON.parse(denied.stdout) as Record<string, string>;
  assert.deepEqual(Object.keys(out).sort(), ['agent_message', 'permission', 'user_message']);
  assert.equal(out.permission, 'deny');
  assert.match(out.agent_message!, /architect.*\\\.md\$.*src\/a\.ts/);
  assert.match(denied.stderr, /src\/a\.ts/);

  // No objection: exit 0 and an empty object, valid JSON that decides nothing (never "allow").
  for (const [input, what] of [
    [cursor(root, 'Write', { file_path: join(root, 'notes.md'), content: 'x' }), 'Write on Markdown'],
    [cursor(root, 'Read', { file_path: join(root, 'src', 'a.ts') }), 'Read'],
    [cursor(root, 'SomeNewCursorTool', { target: 42 }), 'an unknown tool'],
  ] as const) {
    const r = await run('cursor', input);
    assert.equal(r.code, 0, `${what}: ${r.stderr}`);
    assert.equal(r.stdout, '{"permission":"allow"}\n', what);
  }
  const shell = await run('cursor', cursor(root, 'Shell', { command: 'rm -rf /', cwd: root }));
  assert.equal(shell.code, 2);
  assert.match(JSON.parse(shell.stdout).agent_message, /"command" group/);
  // Cursor names MCP tools MCP:<tool>: refused in a mode without the mcp group, left alone in one with it.
  const mcp = await run('cursor', cursor(root, 'MCP:create_issue', { title: 't' }), 'docs-writer');
  assert.equal(mcp.code, 2);
  assert.match(JSON.parse(mcp.stdout).agent_message, /MCP:create_issue is an MCP tool\. .*"mcp" group/);
  assert.equal((await run('cursor', cursor(root, 'MCP:create_issue', { title: 't' }), 'code')).stdout, '{"permission":"allow"}\n');
  const del = await run('cursor', cursor(root, 'Delete', { target_file: join(root, 'src', 'a.ts') }), 'docs-writer');
  assert.equal(del.code, 2);
  assert.match(del.stdout, /\^docs\//);

  // Cursor's third-party hooks run .claude/settings.json entries with Cursor's payload: the
  // claude-code hook answers with both shapes and exit 2.
  const thirdParty = await run('claude-code', write);
  assert.equal(thirdParty.code, 2);
  const both = JSON.parse(thirdParty.stdout) as { permission: string; hookSpecificOutput: { permissionDecision: string } };
  assert.equal(both.permission, 'deny');
  assert.equal(both.hookSpecificOutput.permissionDecision, 'deny');
  noObjection(await run('claude-code', cursor(root, 'Read', { file_path: join(root, 'a.ts') })), 'Cursor Read through claude-code');

  // Arguments sent as a JSON string (Cursor's shape for an MCP tool) are read like an object.
  assert.equal((await run('cursor', JSON.stringify({ hook_event_name: 'preToolUse', workspace_roots: [root], tool_name: 'Write', tool_input: JSON.stringify({ file_path: join(root, 'src', 'b.ts') }) }))).code, 2);

  // Its own errors still fail closed, with nothing on stdout.
  for (const [args, input, why] of [
    [['--mode', 'architect'], '{"hook_event_name":"preToolUse"', /not JSON/],
    [['--mode', 'architect'], JSON.stringify({ hook_event_name: 'preToolUse', tool_name: 'Write', tool_input: 'not json' }), /tool_input must be a JSON object/],
    [['--mode', 'no-such-mode'], write, /unknown mode "no-such-mode"/],
    [['--by-agent'], write, /hook cursor takes --mode/],
    [[], write, /--mode is required/],
  ] as const) {
    const r = await runCli(['hook', 'cursor', ...args], { env, input });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, why);
  }
  // A byte-order mark (Cursor's CLI on Windows) is not a malformed event.
  assert.equal((await run('cursor', `\ufeff${write}`)).code, 2);
  assert.equal((await run('cursor', `\ufeff${cursor(root, 'Read', { file_path: join(root, 'a.ts') })}`)).stdout, '{"permission":"allow"}\n');
});

test('OpenCode’s tool names (sent by the generated plugin in a Claude-shaped event) are judged like the others', async (t) => {
  const { root, env } = project(t);
  const hook = (input: string, slug = 'docs-writer'): Promise<CliRun> => runCli(['hook', 'claude-code', '--mode', slug], { env, input });
  assert.match(claudeReason(await hook(claude(root, 'write', { filePath: join(root, 'README.md'), content: '' }))), /\^docs\//);
  assert.match(claudeReason(await hook(claude(root, 'edit', { filePath: join(root, 'src', 'x.ts'), oldString: 'a', newString: 'b' }))), /\^docs\//);
  assert.match(claudeReason(await hook(claude(root, 'bash', { command: 'ls' }))), /"command" group/);
  noObjection(await hook(claude(root, 'write', { filePath: join(root, 'docs', 'guide.md'), content: '' })), 'write under docs/');
  noObjection(await hook(claude(root, 'todowrite', { todos: [] })), 'todowrite');
});

test('current Claude Code tool names are judged and the old ones still understood', async (t) => {
  const { root, env } = project(t);
  const hook = (input: string, slug: string): Promise<CliRun> => runCli(['hook', 'claude-code', '--mode', slug], { env, input });
  assert.match(claudeReason(await hook(claude(root, 'PowerShell', { command: 'dir' }), 'ask')), /"command" group/);
  assert.match(claudeReason(await hook(claude(root, 'NotebookEdit', { notebook_path: join(root, 'n.ipynb'), new_source: '' }), 'docs-writer')), /\^docs\//);
  assert.match(claudeReason(await hook(claude(root, 'MultiEdit', { file_path: join(root, 'src', 'a.ts'), edits: [{ old_string: 'a', new_string: 'b' }] }), 'architect')), /src\/a\.ts/);
  noObjection(await hook(claude(root, 'LSP', { operation: 'hover', filePath: join(root, 'src', 'a.ts'), line: 1, character: 1 }), 'ask'), 'LSP reads');
  noObjection(await hook(claude(root, 'Agent', { description: 'd', prompt: 'p', subagent_type: 'Explore' }), 'ask'), 'Agent');
  noObjection(await hook(claude(root, 'Task', { description: 'd', prompt: 'p' }), 'ask'), 'Task (the old name of Agent)');
  noObjection(await hook(claude(root, 'EnterWorktree', {}), 'ask'), 'a tool with no Roo counterpart');
});

test('hook claude-code --by-agent takes the mode from agent_type and stays out of every other call', async (t) => {
  const { root, env } = project(t);
  const hook = (input: string, args: string[] = ['--by-agent']): Promise<CliRun> => runCli(['hook', 'claude-code', ...args], { env, input });
  const outside = { file_path: join(root, 'src', 'a.ts'), content: '' };
  assert.match(claudeReason(await hook(claude(root, 'Write', outside, { agent_id: 'a1', agent_type: 'docs-writer' }))), /docs-writer.*\^docs\//);
  // An exported agent's name is the slug lower-cased: "reviewer" is the Reviewer mode, which has no edit group.
  assert.match(claudeReason(await hook(claude(root, 'Write', outside, { agent_id: 'a2', agent_type: 'reviewer' }))), /"edit" group/);
  assert.match(claudeReason(await hook(claude(root, 'Bash', { command: 'ls' }, { agent_id: 'a3', agent_type: 'architect' }))), /"command" group/);
  noObjection(await hook(claude(root, 'Write', { file_path: join(root, 'docs', 'a.md'), content: '' }, { agent_id: 'a1', agent_type: 'docs-writer' })), 'inside the pattern');
  noObjection(await hook(claude(root, 'Write', outside)), 'the main session (no agent_type)');
  noObjection(await hook(claude(root, 'Write', outside, { agent_id: 'a4', agent_type: 'Explore' })), 'Claude Code’s own subagent');
  noObjection(await hook(claude(root, 'Write', outside, { agent_id: 'a5', agent_type: 'general-purpose' })), 'a subagent no mode exports');
  // --mode and --agent keep working beside it.
  assert.match(claudeReason(await hook(claude(root, 'Write', outside, { agent_type: 'x' }), ['--mode', 'architect'])), /architect/);
  noObjection(await hook(claude(root, 'Write', outside, { agent_type: 'x' }), ['--mode', 'architect', '--agent', 'architect']), '--agent for another subagent');
  for (const [args, why] of [[['--by-agent', '--mode', 'architect'], /exclude each other/], [['--by-agent', '--agent', 'x'], /drop --agent/]] as const) {
    const r = await hook(claude(root, 'Write', outside, { agent_type: 'docs-writer' }), [...args]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, why);
  }
});

test('hook --by-agent --plugin NAME --modes-file FILE judges only that plugin\'s agents, by that file\'s modes alone', async (t) => {
  const { root, env } = project(t);
  const file = join(tempDir(t, 'rms-hook-plugin-'), 'modes.yaml');
  // The plugin's docs-writer may edit docs/ only; the project's own docs-writer (project()) is not consulted.
  writeFileSync(file, 'customModes:\n  - slug: docs-writer\n    name: Plugin docs\n    roleDefinition: x\n    groups: [read, [edit, {fileRegex: "^guide/"}]]\n');
  const args = ['--by-agent', '--plugin', 'team', '--modes-file', file];
  const hook = (agent: string, path: string): Promise<CliRun> => runCli(['hook', 'claude-code', ...args], { env, input: claude(root, 'Write', { file_path: join(root, path), content: '' }, { agent_type: agent }) });
  assert.match(claudeReason(await hook('team:docs-writer', 'docs/a.md')), /Plugin docs.*\^guide\//);
  noObjection(await hook('team:docs-writer', 'guide/a.md'), 'inside the plugin mode\'s pattern');
  for (const other of ['docs-writer', 'other:docs-writer', 'teams:docs-writer', 'xteam:docs-writer']) noObjection(await hook(other, 'docs/x.ts'), other);
  // Built-in modes are not in the file either: an agent of the plugin without a mode there cannot be judged.
  for (const agent of ['team:architect', 'team:']) {
    const r = await hook(agent, 'guide/a.md');
    assert.equal(r.code, 2, agent);
    assert.match(r.stderr, /no mode is exported as agent ".*" in .*modes\.yaml/);
  }
  (await import('node:fs')).rmSync(file);
  const gone = await hook('team:docs-writer', 'guide/a.md');
  assert.equal(gone.code, 2);
  assert.match(gone.stderr, /the modes file .*modes\.yaml does not exist/);
  for (const [bad, why] of [[['--mode', 'x', '--plugin', 'team'], /--plugin goes with --by-agent/], [['--by-agent', '--modes-file', file, '--config-dir', root], /--modes-file is the only source of modes/]] as const) {
    const r = await runCli(['hook', 'claude-code', ...bad], { env, input: claude(root, 'Write', { file_path: join(root, 'a'), content: '' }) });
    assert.equal(r.code, 2, bad.join(' '));
    assert.match(r.stderr, why);
  }
});

test('hook --by-agent fails closed while a mode file that may define the subagent cannot be read', async (t) => {
  const { root, env } = project(t);
  writeFileSync(join(root, '.roomodes'), 'customModes:\n  - slug: docs-writer\n    groups: [read\n');
  const input = claude(root, 'Write', { file_path: join(root, 'src', 'a.ts'), content: '' }, { agent_type: 'docs-writer' });
  const r = await runCli(['hook', 'claude-code', '--by-agent'], { env, input });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /cannot tell whether subagent "docs-writer" is an exported mode: .*\.roomodes:\d+/);
  // A subagent the broken file cannot name is still none of the hook's business.
  noObjection(await runCli(['hook', 'claude-code', '--by-agent'], { env, input: claude(root, 'Write', { file_path: join(root, 'a.ts') }, { agent_type: 'Explore' }) }), 'Explore');
});

test('the build ships the hook as one CommonJS file that loads no module of its own beside it', async () => {
  const { readFileSync } = await import('node:fs');
  const { MAIN } = await import('./harness.js');
  const bundle = readFileSync(join(MAIN, '..', 'roo-modes-check.cjs'), 'utf8');
  assert.doesNotMatch(bundle, /^import /m, 'no ES module syntax: the hook never starts the ES module loader');
  assert.doesNotMatch(bundle, /\brequire\(['"]\.{1,2}\//, 'no require of another dist module');
  assert.doesNotMatch(bundle, /\bimport\(['"]\.{1,2}\//, 'no lazy import of another dist module either');
  // The package's command is the CommonJS entry that requires it.
  const pkg = JSON.parse(readFileSync(join(MAIN, '..', '..', 'package.json'), 'utf8')) as { bin: Record<string, string> };
  assert.equal(pkg.bin['roo-modes-server'], 'dist/main.cjs');
  // The regex limits are set when the bundle loads, as when the modules load one by one.
  assert.match(bundle, /setFlagsFromString\("--enable-experimental-regexp-engine-on-excessive-backtracks"\)/);
});

test('hook --by-agent refuses an exported agent whose mode is gone, in the built CLI and in the check file export wrote', async (t) => {
  const { root, env } = project(t);
  const exported = await runCli(['export', '--to', 'claude-code'], { env: { ...env, ROO_PROJECT_ROOT: root }, cwd: root });
  assert.equal(exported.code, 0, exported.stdout);
  // The mode is renamed after the export: .claude/agents/docs-writer.md still runs under Claude Code.
  writeFileSync(join(root, '.roomodes'), 'customModes:\n  - slug: docs-author\n    name: Docs\n    roleDefinition: x\n    groups: [read, [edit, {fileRegex: "^docs/"}]]\n');
  const check = join(root, '.claude', 'hooks', 'roo-modes-check.cjs');
  const viaCheck = (input: string): CliRun => {
    const r = spawnSync(process.execPath, [check, 'hook', 'claude-code', '--by-agent'], { input, env: { ...process.env, ...env }, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const inside = claude(root, 'Write', { file_path: join(root, 'docs', 'a.md'), content: '' }, { agent_type: 'docs-writer' });
  for (const [how, r] of [['CLI', await runCli(['hook', 'claude-code', '--by-agent'], { env, input: inside })], ['check file', viaCheck(inside)]] as const) {
    assert.equal(r.code, 2, `${how}: ${r.stderr}`);
    assert.equal(r.stdout, '', how);
    assert.match(r.stderr, /subagent "docs-writer" \(.*docs-writer\.md\) was exported from mode "docs-writer", which the mode files no longer define \(the modes in force: .*docs-author/, how);
  }
  // A hand-written agent of another name, and one no export wrote, stay none of the hook's business.
  writeFileSync(join(root, '.claude', 'agents', 'helper.md'), '---\nname: helper\ndescription: mine\n---\nHelp.\n');
  for (const agent of ['helper', 'Explore', '../agents/docs-writer']) {
    const input = claude(root, 'Write', { file_path: join(root, 'src', 'a.ts'), content: '' }, { agent_type: agent });
    noObjection(await runCli(['hook', 'claude-code', '--by-agent'], { env, input }), agent);
    noObjection(viaCheck(input), `${agent} (check file)`);
  }
  // An exported agent in the user's folder counts when the project has none of that name.
  mkdirSync(join(env.HOME!, '.claude', 'agents'), { recursive: true });
  renameSync(join(root, '.claude', 'agents', 'docs-writer.md'), join(env.HOME!, '.claude', 'agents', 'docs-writer.md'));
  const user = await runCli(['hook', 'claude-code', '--by-agent'], { env, input: inside });
  assert.equal(user.code, 2, user.stderr);
  assert.match(user.stderr, new RegExp(`subagent "docs-writer" \\(${env.HOME!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.claude/agents/docs-writer\\.md\\) was exported from mode "docs-writer"`));
  // The mode back: judged again, inside the pattern allowed.
  writeFileSync(join(root, '.roomodes'), 'customModes:\n  - slug: docs-writer\n    name: Docs\n    roleDefinition: x\n    groups: [read, [edit, {fileRegex: "^docs/"}]]\n');
  noObjection(viaCheck(inside), 'the mode restored');
});

test('the check file keeps each parsed mode file under its exact text: a same-size edit with the old time is judged anew', async (t) => {
  const { root, env } = project(t);
  const check = join(MAIN, '..', 'roo-modes-check.cjs');
  const cacheHome = tempDir(t, 'rms-hook-cache-');
  const run = (file: string): CliRun => {
    const r = spawnSync(process.execPath, [check, 'hook', 'claude-code', '--mode', 'docs-writer'], {
      input: claude(root, 'Write', { file_path: join(root, file), content: '' }), env: { ...process.env, ...env, XDG_CACHE_HOME: cacheHome }, encoding: 'utf8',
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  noObjection(run('docs/a.md'), 'inside the pattern');
  const entries = readdirSync(join(cacheHome, 'roo-modes-server', 'hook-parsed'));
  assert.equal(entries.length, 1, 'the parse was kept');
  noObjection(run('docs/a.md'), 'inside the pattern, from the kept parse');
  assert.match(claudeReason(run('src/a.ts')), /\^docs\//);
  // The same number of bytes and the same modification time: only the text tells the change.
  const file = join(root, '.roomodes');
  const before = statSync(file);
  writeFileSync(file, readFileSync(file, 'utf8').replace('^docs/', '^dacs/'));
  utimesSync(file, before.atime, before.mtime);
  assert.equal(statSync(file).size, before.size);
  assert.match(claudeReason(run('docs/a.md')), /\^dacs\//);
  noObjection(run('dacs/a.md'), 'inside the new pattern');
});
