// The hook with a broken entry for the asked mode (issue 17 follow-up: it now parses only the files
// that can define the mode): the answers pinned here are the ones the whole-catalogue hook gave.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './harness.js';
import { runCli } from './cli-run.js';

/** docs-writer's pattern does not compile, architect's override lacks its roleDefinition; helper is fine. */
const BROKEN = [
  'customModes:',
  '  - slug: helper',
  '    name: Helper',
  '    roleDefinition: Helps.',
  '    groups: [read]',
  '  - slug: docs-writer',
  '    name: Docs Writer',
  '    roleDefinition: You write documentation.',
  '    groups:',
  '      - read',
  '      - - edit',
  '        - fileRegex: "(docs/"',
  '  - slug: architect',
  '    name: Broken Architect',
  '    groups: [read, edit]',
  '',
].join('\n');

function project(t: { after(fn: () => void): void }, roomodes: string): { root: string; env: Record<string, string> } {
  const root = tempDir(t, 'rms-hook-broken-');
  const home = tempDir(t, 'rms-hook-broken-home-');
  writeFileSync(join(root, '.roomodes'), roomodes);
  return { root, env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), CLAUDE_PROJECT_DIR: '' } };
}

const edit = (root: string): string => JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Edit', cwd: root, tool_input: { file_path: join(root, 'src', 'main.ts') } });

test('hook: the asked mode’s entry is invalid: exit 2, the modes in force and the file’s problems, as before', async (t) => {
  const { root, env } = project(t, BROKEN);
  const r = await runCli(['hook', 'claude-code', '--mode', 'docs-writer'], { env, input: edit(root) });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  const file = join(root, '.roomodes');
  assert.equal(r.stderr, `roo-modes-server hook: unknown mode "docs-writer" in ${root}; the modes in force: code, architect, ask, debug, orchestrator, helper; `
    + `problems in the mode files: ${file}:6: mode "docs-writer" was skipped: groups[1][1]: fileRegex is not a valid regular expression: Invalid regular expression: /(docs//: Unterminated group; `
    + `${file}:13: mode "architect" was skipped: roleDefinition: required\n`);
});

test('hook: an invalid project override of a built-in leaves the built-in in force, as before', async (t) => {
  const { root, env } = project(t, BROKEN);
  const r = await runCli(['hook', 'claude-code', '--mode', 'architect'], { env, input: edit(root) });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
  assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
  assert.equal(out.hookSpecificOutput.permissionDecisionReason,
    "Mode architect (roo-modes-server): Tool 'Edit' in mode '🏗️ Architect' can only edit files matching pattern: \\.md$ (Markdown files only). Got: src/main.ts");
});

test('hook: a .roomodes that is not YAML (nor JSON) defines nothing, even the asked mode it spells', async (t) => {
  const { root, env } = project(t, BROKEN.replace('name: Helper', 'name: "Helper'));
  const r = await runCli(['hook', 'claude-code', '--mode', 'helper'], { env, input: edit(root) });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown mode "helper" .*the modes in force: code, architect, ask, debug, orchestrator; problems in the mode files: .*\.roomodes:\d+: cannot parse the file/);
  const b = await runCli(['hook', 'claude-code', '--mode', 'architect'], { env, input: edit(root) });
  assert.equal(b.code, 0, b.stderr);
  assert.match(b.stdout, /in mode '🏗️ Architect' can only edit files matching pattern/);
});
