// The README's examples, run as a newcomer would run them against the built server: its .roomodes
// passes `validate`, its Claude Code path (export, commit) gives a teammate who has only Node a hook
// that holds the subagent to the mode's pattern, and its by-hand check prints what the README
// shows. docs/protocol.md's JSON lines are run and compared too. Each example sits between
// <!-- NAME:begin --> and <!-- NAME:end --> markers, so the text and the test cannot drift apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, REPO, tempDir } from './harness.js';

/** The text between a page's <!-- name:begin --> and <!-- name:end --> markers. */
function marked(page: string, name: string): string {
  const doc = readFileSync(join(REPO, page), 'utf8');
  const begin = `<!-- ${name}:begin -->`;
  const from = doc.indexOf(begin);
  const to = doc.indexOf(`<!-- ${name}:end -->`);
  assert.ok(from >= 0 && to > from, `${page} has the ${name} markers in order`);
  return doc.slice(from + begin.length, to);
}

/** The fenced blocks of a marked part, as [language, body]. */
function blocks(text: string): Array<[string, string]> {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => [m[1]!, m[2]!]);
}

interface Step { command: string; expected: string[] }

/** A console block as commands (`$ …`, `\`-continued) each with the output lines shown after it. */
function consoleSteps(body: string): Step[] {
  const steps: Step[] = [];
  const lines = body.replace(/\n$/, '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('$ ')) {
      let command = line.slice(2);
      while (command.endsWith('\\') && i + 1 < lines.length) command = `${command}\n${lines[++i]!}`; // bash reads the continuation itself
      steps.push({ command, expected: [] });
    } else {
      assert.ok(steps.length > 0, `output before any command: ${line}`);
      steps.at(-1)!.expected.push(line);
    }
  }
  return steps;
}

interface Machine { home: string; path: string }

/** A home folder of its own and a PATH whose `roo-modes-server` is the built server, as after `npm link`. */
function machine(t: { after(fn: () => void): void }): Machine {
  const home = tempDir(t, 'rms-readme-home-');
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'roo-modes-server'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
  chmodSync(join(bin, 'roo-modes-server'), 0o755);
  return { home, path: `${bin}:${process.env.PATH ?? ''}` };
}

function env(m: Machine, path = m.path): NodeJS.ProcessEnv {
  const { CLAUDE_PROJECT_DIR: _drop, ...rest } = process.env;
  return {
    ...rest, HOME: m.home, ROO_CONFIG_DIR: join(m.home, '.roo-code'), PATH: path, GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Newcomer', GIT_AUTHOR_EMAIL: 'newcomer@example.invalid', GIT_COMMITTER_NAME: 'Newcomer', GIT_COMMITTER_EMAIL: 'newcomer@example.invalid',
  };
}

function bash(script: string, cwd: string, e: NodeJS.ProcessEnv, input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', script], { cwd, env: e, input, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs a console block's commands in `cwd`; shown output must match (the project folder written /path/to/project). */
function runConsole(body: string, cwd: string, e: NodeJS.ProcessEnv): string[] {
  const outputs: string[] = [];
  for (const step of consoleSteps(body)) {
    const r = bash(step.command, cwd, e);
    assert.equal(r.status, 0, `${step.command}\n${r.stderr}`);
    const got = r.stdout.split(cwd).join('/path/to/project').replace(/\n$/, '');
    if (step.expected.length > 0) assert.equal(got, step.expected.join('\n'), `the output of: ${step.command}`);
    else assert.notEqual(got, '', `${step.command} prints something`);
    outputs.push(got);
  }
  return outputs;
}

/** A fresh git project holding the README's .roomodes. */
function project(t: { after(fn: () => void): void }, m: Machine): string {
  const dir = tempDir(t, 'rms-readme-project-');
  const [[lang, roomodes]] = blocks(marked('README.md', 'readme-roomodes')) as [[string, string]];
  assert.equal(lang, 'yaml');
  writeFileSync(join(dir, '.roomodes'), roomodes);
  assert.equal(bash('git init -q', dir, env(m)).status, 0);
  return dir;
}

test("the README's .roomodes passes validate, and modes shows its edit pattern", (t) => {
  const m = machine(t);
  const dir = project(t, m);
  const [[lang, body]] = blocks(marked('README.md', 'readme-first')) as [[string, string]];
  assert.equal(lang, 'console');
  const [, modes] = runConsole(body, dir, env(m));
  assert.match(modes!, /^docs-writer +.*edit\(\^docs\/\.\*\\\.md\$\)/m);
});

test("the README's Claude Code path: export and commit; a teammate's clone with only node on PATH holds the subagent to the pattern", (t) => {
  const m = machine(t);
  const dir = project(t, m);
  const [[lang, script]] = blocks(marked('README.md', 'readme-claude-code')) as [[string, string]];
  assert.equal(lang, 'sh');
  const wrote = bash(`set -e\n${script}`, dir, env(m));
  assert.equal(wrote.status, 0, wrote.stderr);

  const teammate = tempDir(t, 'rms-readme-teammate-');
  const clone = join(teammate, 'project');
  assert.equal(bash(`git clone -q "${dir}" "${clone}"`, teammate, env(m)).status, 0);
  // The teammate's PATH holds node and nothing else: no roo-modes-server, no clone of it.
  const nodeOnly = join(teammate, 'bin');
  mkdirSync(nodeOnly);
  symlinkSync(process.execPath, join(nodeOnly, 'node'));
  const theirs: Machine = { home: teammate, path: nodeOnly };

  // The hook as .claude/settings.json declares it, run the way Claude Code runs an exec-form hook.
  const settings = JSON.parse(readFileSync(join(clone, '.claude', 'settings.json'), 'utf8')) as {
    hooks: { PreToolUse: Array<{ hooks: Array<{ command: string; args: string[]; onFailure?: string }> }> };
  };
  const handler = settings.hooks.PreToolUse[0]!.hooks[0]!;
  assert.equal(handler.onFailure, 'block');
  const args = handler.args.map((a) => a.replaceAll('${CLAUDE_PROJECT_DIR}', clone));
  const ask = (file: string): string => {
    const event = { hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(clone, file), content: 'x' }, cwd: clone, agent_type: 'docs-writer' };
    const r = spawnSync(handler.command, args, { cwd: clone, env: env(theirs, nodeOnly), input: JSON.stringify(event), encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  assert.match(ask('src/app.ts'), /"permissionDecision":"deny".*\^docs\/\.\*\\\\\.md\$/);
  assert.equal(ask('docs/guide.md'), '', 'an edit inside the pattern goes ahead');

  // The by-hand check of the README, run in the teammate's clone, prints what the README shows.
  const [[clang, check]] = blocks(marked('README.md', 'readme-check')) as [[string, string]];
  assert.equal(clang, 'console');
  runConsole(check, clone, env(theirs, `${nodeOnly}:/usr/bin:/bin`));
});

test("docs/protocol.md's JSON lines, piped into the built server, answer what the page shows", (t) => {
  const m = machine(t);
  const parts = blocks(marked('docs/protocol.md', 'protocol-by-hand'));
  assert.equal(parts.length, 2);
  for (const [lang, body] of parts) {
    assert.equal(lang, 'console');
    const steps = consoleSteps(body);
    assert.ok(steps.every((s) => s.command.includes('node dist/main.js') && s.expected.length > 0));
    runConsole(body, REPO, env(m));
  }
});
