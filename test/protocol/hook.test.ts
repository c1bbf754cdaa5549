import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { MAIN, tempDir } from './harness.js';
import { hookProject } from './hook-rig.js';
import { runCli } from './cli-run.js';

const project = (t: { after(fn: () => void): void }): { root: string; env: Record<string, string> } => hookProject(t);

/** A PreToolUse event as Claude Code sends it (absolute paths, the session's cwd). */
const event = (root: string, tool_name: string, tool_input: Record<string, unknown>, extra: Record<string, unknown> = {}): string => JSON.stringify({
  session_id: 'abc123', transcript_path: join(root, 't.jsonl'), cwd: root, permission_mode: 'default',
  hook_event_name: 'PreToolUse', tool_name, tool_input, tool_use_id: 'toolu_01', ...extra,
});

const denied = (stdout: string): string => {
  const out = JSON.parse(stdout) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };
  assert.equal(out.hookSpecificOutput.hookEventName, 'PreToolUse');
  assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
  return out.hookSpecificOutput.permissionDecisionReason;
};

test('hook denies an Edit outside the mode’s pattern and names the mode and the pattern', async (t) => {
  const { root, env } = project(t);
  const r = await runCli(['hook', 'claude-code', '--mode', 'architect'], {
    env, input: event(root, 'Edit', { file_path: join(root, 'src', 'main.ts'), old_string: 'a', new_string: 'b', replace_all: false }),
  });
  assert.equal(r.code, 0, r.stderr);
  const reason = denied(r.stdout);
  assert.match(reason, /architect/);
  assert.match(reason, /\\\.md\$/);
});

test('hook allows an Edit inside the pattern: exit 0 and nothing on stdout', async (t) => {
  const { root, env } = project(t);
  for (const [mode, file] of [['architect', 'docs/plan.md'], ['docs-writer', 'docs/guide/intro.txt']] as const) {
    const r = await runCli(['hook', 'claude-code', '--mode', mode], { env, input: event(root, 'Edit', { file_path: join(root, file), old_string: 'a', new_string: 'b' }) });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '', `${mode} ${file}`);
  }
  const w = await runCli(['hook', 'claude-code', '--mode', 'docs-writer'], { env, input: event(root, 'Write', { file_path: join(root, 'README.md'), content: 'x' }) });
  assert.match(denied(w.stdout), /\^docs\//);
});

test('hook judges a relative path that leaves the project and comes back in (../<project>/…) by where it lands', async (t) => {
  const { root, env } = project(t);
  const back = `../${basename(root)}`;
  const run = (file_path: string) => runCli(['hook', 'claude-code', '--mode', 'docs-writer'], { env, input: event(root, 'Write', { file_path, content: 'x' }) });
  const inside = await run(`${back}/docs/notes.md`);
  assert.equal(inside.code, 0, inside.stderr);
  assert.equal(inside.stdout, '');
  assert.match(denied((await run(`${back}/src/app.ts`)).stdout), /\^docs\/.*\(that is, src\/app\.ts\)/);
  assert.match(denied((await run(`${back}-elsewhere/docs/notes.md`)).stdout), /outside the project root/);
});

test('hook applies validate_tool_use’s other rules: groups, the project root, links leading out', async (t) => {
  const { root, env } = project(t);
  mkdirSync(join(root, 'outside-target'));
  const elsewhere = tempDir(t, 'rms-hook-out-');
  symlinkSync(elsewhere, join(root, 'docs', 'link'));
  const cases: [string, string, Record<string, unknown>, RegExp][] = [
    ['architect', 'Bash', { command: 'rm -rf /' }, /"command" group/],
    ['code', 'Write', { file_path: '/etc/passwd', content: '' }, /outside the project root/],
    ['docs-writer', 'Write', { file_path: join(root, 'docs', 'link', 'x.md'), content: '' }, /leads to .*outside the project root/],
    ['architect', 'NotebookEdit', { notebook_path: join(root, 'a.ipynb'), new_source: '' }, /\\\.md\$/],
  ];
  for (const [mode, tool, input, why] of cases) {
    const r = await runCli(['hook', 'claude-code', '--mode', mode], { env, input: event(root, tool, input) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(denied(r.stdout), why, `${mode} ${tool}`);
  }
});

test('hook fails closed: malformed input, an unknown mode or bad usage exit 2 with the reason on stderr', async (t) => {
  const { root, env } = project(t);
  const cases: [string[], string, RegExp][] = [
    [['--mode', 'architect'], '{"tool_name": ', /not JSON/],
    [['--mode', 'architect'], '[1,2]', /must be a JSON object/],
    [['--mode', 'architect'], JSON.stringify({ hook_event_name: 'PreToolUse', tool_input: {} }), /tool_name/],
    [['--mode', 'architect'], event(root, 'Edit', { file_path: 42 }), /tool_input\.file_path/],
    [['--mode', 'architect'], event(root, 'Edit', {}, { hook_event_name: 'PostToolUse' }), /PreToolUse \(Claude Code, VS Code\) and preToolUse \(Cursor\) events only/],
    [['--mode', 'no-such-mode'], event(root, 'Edit', { file_path: join(root, 'a.md') }), /unknown mode "no-such-mode".*architect/],
    [[], event(root, 'Edit', { file_path: join(root, 'a.md') }), /--mode \(or --by-agent\) is required/],
  ];
  for (const [args, input, why] of cases) {
    const r = await runCli(['hook', 'claude-code', ...args], { env, input });
    assert.equal(r.code, 2, `${args.join(' ')} ${input}: ${r.stdout}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, why);
  }
  // A broken mode file hides the mode it defined: still exit 2, saying what is wrong with the file.
  writeFileSync(join(root, '.roomodes'), 'customModes:\n  - slug: docs-writer\n    groups: [read\n');
  const broken = await runCli(['hook', 'claude-code', '--mode', 'docs-writer'], { env, input: event(root, 'Edit', { file_path: join(root, 'docs', 'a.md') }) });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /unknown mode "docs-writer".*problems in the mode files: .*\.roomodes:\d+/);
  const help = await runCli(['hook', '--help'], { env });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /hook claude-code \(--mode SLUG \| --by-agent\)/);
  assert.match(help.stdout, /hook cursor --mode SLUG/);
});

test('hook --agent judges only its own subagent’s calls, --edits-only only edit tools', async (t) => {
  const { root, env } = project(t);
  const outside = { file_path: join(root, 'src', 'a.ts'), content: '' };
  const other = await runCli(['hook', 'claude-code', '--mode', 'architect', '--agent', 'architect'], { env, input: event(root, 'Write', outside, { agent_id: 'a1', agent_type: 'code' }) });
  assert.equal(other.code, 0);
  assert.equal(other.stdout, '');
  const main = await runCli(['hook', 'claude-code', '--mode', 'architect', '--agent', 'architect'], { env, input: event(root, 'Write', outside) });
  assert.equal(main.stdout, '');
  const own = await runCli(['hook', 'claude-code', '--mode', 'architect', '--agent', 'architect'], { env, input: event(root, 'Write', outside, { agent_id: 'a1', agent_type: 'architect' }) });
  denied(own.stdout);
  // VS Code sends every tool to an agent's hooks, with its own names and a list of files.
  const vsTerminal = await runCli(['hook', 'claude-code', '--mode', 'architect', '--edits-only'], { env, input: event(root, 'run_in_terminal', { command: 'ls' }) });
  assert.equal(vsTerminal.stdout, '');
  const vsEdit = await runCli(['hook', 'claude-code', '--mode', 'architect', '--edits-only'], { env, input: event(root, 'editFiles', { files: [join(root, 'docs', 'a.md'), join(root, 'src', 'b.ts')] }) });
  assert.match(denied(vsEdit.stdout), /src\/b\.ts/);
  const patch = await runCli(['hook', 'claude-code', '--mode', 'architect'], { env, input: event(root, 'apply_patch', { input: '*** Begin Patch\n*** Update File: src/x.ts\n@@\n-a\n+b\n*** End Patch' }) });
  assert.match(denied(patch.stdout), /src\/x\.ts/);
  const blind = await runCli(['hook', 'claude-code', '--mode', 'architect'], { env, input: event(root, 'Write', {}) });
  assert.match(denied(blind.stdout), /may edit only files matching/);
});

// util-linux `script` gives the hook a pseudo-terminal as stdin, as when someone runs it by hand.
const SCRIPT = process.platform === 'linux' ? ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p)) : undefined;

test('run by hand with a terminal as stdin, the hook says in one line what it waits for; piped, it says nothing', { skip: SCRIPT === undefined && 'needs util-linux script for a pseudo-terminal' }, async (t) => {
  const project = tempDir(t, 'rms-hook-tty-');
  const event = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: 'src/a.ts' } });
  // The command hook, and the self-contained check, which looks at the terminal its own way.
  for (const file of [MAIN, join(MAIN, '..', 'roo-modes-check.cjs')]) {
    const command = [process.execPath, file, 'hook', 'claude-code', '--mode', 'architect', '--project-root', project].map((w) => `'${w}'`).join(' ');
    const child = spawn(SCRIPT!, ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let seen = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => { seen += s; });
    // The event, then Ctrl-D: the terminal's end of input.
    child.stdin.end(`${event}\n\u0004`);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, seen);
    const hints = seen.split(/\r?\n/).filter((l) => l.startsWith('roo-modes-server hook: waiting for one pre-tool event as JSON on stdin'));
    assert.equal(hints.length, 1, `${file}: ${seen}`);
    assert.match(hints[0]!, /To try it: echo '.*' \| roo-modes-server hook claude-code --mode architect --project-root \.$/);
    assert.match(seen, /"permissionDecision":"deny"/, 'it still judges the event it then reads');
  }

  const piped = await runCli(['hook', 'claude-code', '--mode', 'architect', '--project-root', project], { input: event });
  assert.equal(piped.stderr, '', 'no hint when an agent pipes the event');
  assert.match(piped.stdout, /"permissionDecision":"deny"/);
});

test('a refusal that cannot be written (the agent closed our stdout) still blocks: exit 2, said on stderr', async (t) => {
  // Before, the check file died of an unhandled EPIPE (exit 1, which Claude Code lets through) and
  // the command hook exited 0 in silence (no objection).
  const { root, env } = project(t);
  const input = event(root, 'Edit', { file_path: join(root, 'src', 'main.ts'), old_string: 'a', new_string: 'b' });
  for (const file of [MAIN, join(MAIN, '..', 'roo-modes-check.cjs')]) {
    const child = spawn(process.execPath, [file, 'hook', 'claude-code', '--mode', 'architect'], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => { stderr += s; });
    child.stdin.end(input);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 2, `${basename(file)}: ${stderr}`);
    assert.match(stderr, /cannot judge the call: EPIPE/, basename(file));
  }
});

test('roo-modes-server hook whose bundled check cannot load blocks: exit 2 saying why, not a crash', async (t) => {
  // Before, the loader's error escaped as a crash (exit 1, which some agents let through).
  const { cpSync, readFileSync } = await import('node:fs');
  const { spawnSync } = await import('node:child_process');
  const copy = tempDir(t, 'rms-hook-broken-dist-');
  cpSync(join(MAIN, '..'), join(copy, 'dist'), { recursive: true });
  cpSync(join(MAIN, '..', '..', 'package.json'), join(copy, 'package.json'));
  const check = join(copy, 'dist', 'roo-modes-check.cjs');
  // Cut short: its code's comment never ends, so the file is no JavaScript to Node.
  writeFileSync(check, readFileSync(check, 'utf8').slice(0, -3));
  const { root, env } = project(t);
  const r = spawnSync(process.execPath, [join(copy, 'dist', 'main.cjs'), 'hook', 'claude-code', '--mode', 'architect'], {
    env: { ...process.env, ...env }, input: event(root, 'Write', { file_path: join(root, 'docs', 'a.md'), content: '' }), encoding: 'utf8',
  });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^roo-modes-server hook: cannot load the hook's code: .*(Unterminated comment|Invalid or unexpected token)/);
});
